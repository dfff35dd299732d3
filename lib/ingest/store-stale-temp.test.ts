import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createNoEmbedder } from "@/lib/embed";
import { ingestDocument } from "@/lib/ingest";
import { openStore } from "@/lib/store";
import { localDir, removeStaleTempFiles, STALE_TEMP_MS } from "@/lib/store/stale-temp";

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "stale-temp-"));
  dirs.push(dir);
  return dir;
}

/** A file of `bytes` bytes last written `ageMs` ago. */
async function plant(file: string, bytes: number, ageMs: number): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, Buffer.alloc(bytes));
  const t = (Date.now() - ageMs) / 1000;
  await utimes(file, t, t);
}

describe("temporary files a stopped writer left", () => {
  it("are removed from a table's folders once untouched for STALE_TEMP_MS; fresh ones, other files and other folders stay", async () => {
    const dir = await tempDir();
    const old = STALE_TEMP_MS + 60_000;
    await plant(path.join(dir, "chunks.lance/data/.tmpAbC123"), 1000, old);
    await plant(path.join(dir, "chunks.lance/_indices/3f2a/.tmpXyZ789"), 24, old);
    await plant(path.join(dir, "chunks.lance/data/.tmpNew001"), 10, 1000); // a writer still at work
    await plant(path.join(dir, "chunks.lance/data/0101.lance"), 10, old);
    await plant(path.join(dir, "other/.tmpOld002"), 10, old); // not a table's folder
    expect(await removeStaleTempFiles(dir)).toEqual({ files: 2, bytes: 1024 });
    expect((await readdir(path.join(dir, "chunks.lance/data"))).sort()).toEqual([".tmpNew001", "0101.lance"]);
    expect(await readdir(path.join(dir, "chunks.lance/_indices/3f2a"))).toEqual([]);
    expect(await readdir(path.join(dir, "other"))).toEqual([".tmpOld002"]);
  });

  it("are removed when a store opens, and what it holds is intact", async () => {
    const dir = await tempDir();
    const opts = { uri: dir, embedder: createNoEmbedder(), maintenanceDelayMs: 600_000 };
    let store = await openStore(opts);
    await ingestDocument(store, { filename: "a.md", data: new TextEncoder().encode("The heron wades in the bay.") });
    await store.close();
    const left = path.join(dir, "chunks.lance/data/.tmpK1lled");
    await plant(left, 4096, STALE_TEMP_MS + 1000);
    store = await openStore(opts);
    await store.close(); // waits for the sweep it started
    expect(await readdir(path.join(dir, "chunks.lance/data"))).not.toContain(".tmpK1lled");
    store = await openStore(opts);
    try {
      expect((await store.textSearch("heron", { limit: 5 })).map((c) => c.text)).toEqual(["The heron wades in the bay."]);
    } finally {
      await store.close();
    }
  });

  it("are looked for only in a local store", () => {
    expect(localDir("/srv/kb")).toBe("/srv/kb");
    expect(localDir("file:///srv/kb")).toBe("/srv/kb");
    expect(localDir("s3://bucket/kb")).toBeNull();
  });
});
