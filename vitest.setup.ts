/**
 * Test files share their worker's module cache (`isolate: false` in vitest.config.ts: importing the app's modules
 * anew for every file was a third of Vitest's time). What a file leaves in the process is undone after it, so the
 * next file starts as in a fresh process: the process-wide values (lib/process-global.ts: the store, metrics,
 * settings caches) are closed and dropped, and the environment is restored.
 */
import { afterAll } from "vitest";
// Sets Lance's thread pools in the environment on first import, as in the app: kept in what is restored below.
import "@/lib/store/lance-env";

const initialEnv = { ...process.env };

afterAll(async () => {
  const g = globalThis as Record<symbol, unknown>;
  const store = g[Symbol.for("kb-mcp-chat.store")];
  if (store instanceof Map) {
    // A store the file closed itself may not close twice: that is not this file's failure.
    for (const opening of store.values())
      await Promise.resolve(opening)
        .then((s) => s.close?.())
        .catch(() => undefined);
  }
  for (const key of Object.getOwnPropertySymbols(g)) if (key.description?.startsWith("kb-mcp-chat.")) delete g[key];
  process.env = { ...initialEnv };
});
