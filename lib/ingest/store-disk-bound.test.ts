/**
 * Disk stays bounded on every ingest path (a real LanceDB store in a temp dir, a short version retention so the
 * idle wait is seconds, not a minute): after a batch ingest that settles (the CLI's end), after uploads, and
 * after MCP add_document calls, the data dir comes back to at most 3× the raw text once the process is idle,
 * without another write.
 */
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createNoEmbedder } from "@/lib/embed";
import { createBatchIngest, ingestDocument } from "@/lib/ingest";
import { openStore, type Store } from "@/lib/store";

const RETENTION_MS = 3000;
const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    // Maintenance may remove a file between the listing and its stat.
    total += e.isDirectory() ? await dirBytes(p) : ((await stat(p).catch(() => null))?.size ?? 0);
  }
  return total;
}

/** Deterministic documents of varied English words (no two alike, so nothing is deduplicated). */
function documents(n: number): { name: string; text: string }[] {
  const words =
    "policy leave travel budget office team annual review expense claim receipt manager approval holiday schedule remote network security password device laptop printer meeting agenda minutes project deadline".split(
      " ",
    );
  let seed = 7;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed;
  };
  return Array.from({ length: n }, (_, d) => {
    const sections = Array.from({ length: 6 }, (_, s) => {
      const sentences = Array.from({ length: 8 }, () => {
        const len = 8 + (next() % 8);
        const w = Array.from({ length: len }, () => words[next() % words.length]);
        return `${w.join(" ")} ${next() % 1000}.`;
      });
      return `## Section ${s + 1} of document ${d}\n\n${sentences.join(" ")}`;
    });
    return { name: `doc-${d}.md`, text: `# Document ${d}\n\n${sections.join("\n\n")}\n` };
  });
}

async function freshStore(): Promise<{ store: Store; dir: string }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "disk-bound-"));
  dirs.push(dir);
  const store = await openStore({
    uri: dir,
    embedder: createNoEmbedder(),
    versionRetentionMs: RETENTION_MS,
    maintenanceDelayMs: 200,
  });
  return { store, dir };
}

/** Versions kept beyond the latest one, over the chunks, documents and meta tables. */
async function oldVersions(store: Store): Promise<number> {
  const { versions } = await store.stats();
  return Object.values(versions).reduce((n, v) => n + Math.max(0, v - 1), 0);
}

/** What `npm run ingest` does: one batch ingest, then settle before exiting. */
async function ingestLikeTheCli(store: Store, docs: { name: string; text: string }[]): Promise<void> {
  const batch = createBatchIngest(store);
  for (const d of docs) await batch.add({ filename: d.name, data: Buffer.from(d.text), origin: "cli" });
  await batch.flush();
  await store.settle();
}

const rawBytes = (docs: { text: string }[]) => docs.reduce((n, d) => n + Buffer.byteLength(d.text), 0);

/** Waits until the data dir is at most `bound` bytes and no old version is left, or the time is up; its last size. */
async function settlesTo(store: Store, dir: string, bound: number, ms: number): Promise<number> {
  const until = Date.now() + ms;
  let size = await dirBytes(dir);
  while ((size > bound || (await oldVersions(store)) > 0) && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 250));
    size = await dirBytes(dir);
  }
  expect(await oldVersions(store), `old versions left once idle: ${JSON.stringify((await store.stats()).versions)}`).toBe(0);
  return size;
}

describe("the data dir after an ingest, once idle", () => {
  const docs = documents(60);
  const raw = rawBytes(docs);

  it("a batch ingest that settles (the CLI) leaves at most 3× the raw text", async () => {
    const { store, dir } = await freshStore();
    try {
      await ingestLikeTheCli(store, docs);
      const size = await dirBytes(dir);
      expect(size / raw, `${size} bytes for ${raw} of text`).toBeLessThanOrEqual(3);
      expect(await oldVersions(store)).toBe(0);
    } finally {
      await store.close();
    }
  }, 120_000);

  it("uploads and add_document calls (one write each) on a quiet store shrink back to at most 3× without another write", async () => {
    const { store, dir } = await freshStore();
    try {
      await ingestLikeTheCli(store, docs);
      // Then uploads and add_document calls: once they are folded, nothing but the cleanup runs maintenance again.
      const late = documents(64).slice(60);
      for (const [i, d] of late.entries()) {
        await ingestDocument(store, { filename: d.name, data: Buffer.from(d.text), origin: i % 2 ? "upload" : "mcp" });
      }
      expect(await oldVersions(store), "the writes leave old versions at first").toBeGreaterThan(0);
      // Maintenance runs in the background: on a busy machine it takes longer, so the wait ends when it is done, up to 90 s.
      const size = await settlesTo(store, dir, 3 * (raw + rawBytes(late)), 90_000);
      expect(size / (raw + rawBytes(late)), `${size} bytes`).toBeLessThanOrEqual(3);
    } finally {
      await store.close();
    }
  }, 180_000);
});
