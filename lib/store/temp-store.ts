/** Test-only: a real store in a temp dir. */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createOfflineEmbedder } from "@/lib/embed";
import { openStore } from "./index";

/** A store on a fresh temp dir named after `prefix` (offline embeddings of `dimensions`); close() removes it all. */
export async function openTempStore(prefix: string, dimensions = 256) {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  const store = await openStore({ uri: dir, embedder: createOfflineEmbedder(dimensions) });
  return {
    dir,
    store,
    /** Closes the store and removes its dir. */
    async close() {
      await store.close();
      await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    },
  };
}

export type TempStore = Awaited<ReturnType<typeof openTempStore>>;
