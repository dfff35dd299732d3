/**
 * Regression: closing a table while Lance works on it killed the process (LanceDB 0.31: SIGSEGV in
 * Table.optimize() after Table.close()); a test that closed its store during background maintenance took its
 * whole Vitest worker down with it. A crash here fails this file as "Worker exited unexpectedly".
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createNoEmbedder } from "@/lib/embed";
import { ingestDocument } from "@/lib/ingest";
import { openStore, type Store } from "@/lib/store/index";

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe("closing a store", () => {
  it("waits for the maintenance run under way, and the run after it does nothing", async () => {
    const write = (store: Store, name: string) =>
      ingestDocument(store, { filename: `${name}.md`, data: new TextEncoder().encode(`The ${name} feeds at low tide.`) });
    for (const delayMs of [0, 1, 2, 4, 8, 16, 32]) {
      const dir = await mkdtemp(path.join(os.tmpdir(), "store-close-"));
      dirs.push(dir);
      const store = await openStore({ uri: dir, embedder: createNoEmbedder(), maintenanceDelayMs: 600_000 });
      await write(store, "heron");
      await store.optimize(); // the full-text index exists: the next run goes straight to compaction
      for (const bird of ["egret", "curlew", "plover"]) await write(store, bird);
      const running = store.optimize({ retainMs: 0 });
      await new Promise((r) => setTimeout(r, delayMs));
      await store.close();
      await expect(running).resolves.toBeUndefined();
      await expect(store.optimize()).resolves.toBeUndefined(); // skipped: the store is closing
    }
  });

  it("waits for a write no request waited for (a token's last use), so it never lands in a removed folder", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "store-close-"));
    dirs.push(dir);
    const store = await openStore({ uri: dir, embedder: createNoEmbedder() });
    let landed = false;
    const late = new Promise<void>((resolve) => setTimeout(resolve, 300)).then(() => {
      landed = true;
    });
    store.background(late, "a late write");
    await store.close();
    expect(landed).toBe(true);
    // One that fails is logged, and the store still closes.
    const again = await openStore({ uri: dir, embedder: createNoEmbedder() });
    again.background(Promise.reject(new Error("disk full")), "a failing write");
    await expect(again.close()).resolves.toBeUndefined();
  });
});
