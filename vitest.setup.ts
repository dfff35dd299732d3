/**
 * Test files share their worker's module cache (`isolate: false` in vitest.config.ts: importing the app's modules
 * anew for every file was a third of Vitest's time). What a file leaves in the process is undone after it, so the
 * next file starts as in a fresh process: the process-wide values (lib/process-global.ts: the store, the parse and
 * OCR worker pools, metrics, settings caches) are closed where they can be and dropped, and the environment is restored.
 */
import { afterAll } from "vitest";
// Sets Lance's thread pools in the environment on first import, as in the app: kept in what is restored below.
import "@/lib/store/lance-env";

const initialEnv = { ...process.env };

/** What holds open files or worker processes: closed before it is dropped. */
const CLOSED = ["kb-mcp-chat.store", "kb-mcp-chat.parse-pool", "kb-mcp-chat.ocr-pool"];

afterAll(async () => {
  const g = globalThis as Record<symbol, unknown>;
  for (const name of CLOSED) {
    const value = g[Symbol.for(name)];
    delete g[Symbol.for(name)];
    // The store is kept as a map of its opening; a file that closed a value itself may see it refuse a second close.
    const values = value instanceof Map ? [...value.values()] : [value];
    for (const v of values)
      await Promise.resolve(v)
        .then((x) => (x as { close?: () => unknown } | undefined)?.close?.())
        .catch(() => undefined);
  }
  for (const key of Object.getOwnPropertySymbols(g)) if (key.description?.startsWith("kb-mcp-chat.")) delete g[key];
  process.env = { ...initialEnv };
});
