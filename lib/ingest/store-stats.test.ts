import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { createNoEmbedder } from "@/lib/embed";
import { ingestDocument } from "@/lib/ingest";
import { openStore } from "@/lib/store/index";

// /metrics reads these figures at any time; a version cleanup deleting manifests while Lance lists them made the
// listing fail with "not found" (every run of this test before the listing was retried).
it("counts rows and versions while cleanups delete old versions", { timeout: 120_000 }, async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), "stats-"));
  const store = await openStore({ uri: dir, embedder: createNoEmbedder(), versionRetentionMs: 1, maintenanceDelayMs: 10 });
  const failures: string[] = [];
  let writing = true;
  let reads = 0;
  const reader = (async () => {
    while (writing) {
      await store.stats().then(
        () => reads++,
        (err: unknown) => failures.push(String(err).slice(0, 200)),
      );
    }
  })();
  try {
    for (let i = 0; i < 40; i++) {
      const data = Buffer.from(`# Note ${i}\n\nThe harbour crane ${i} lifts containers at dawn.`);
      await ingestDocument(store, { filename: `note-${i}.md`, data, origin: "upload" });
      await store.optimize({ retainMs: 1 });
    }
  } finally {
    writing = false;
    await reader;
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
  expect(failures).toEqual([]);
  expect(reads).toBeGreaterThan(10);
});
