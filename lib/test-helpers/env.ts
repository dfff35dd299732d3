import { rm } from "node:fs/promises";
import path from "node:path";

/** Puts environment variables back as they were before a test (undefined: unset). */
export function restoreEnv(values: Record<string, string | undefined>): void {
  for (const [k, v] of Object.entries(values)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
}

/**
 * Points the app's settings at a fresh data folder with the offline embedder (and `set`), unsets what would
 * change access or the embedder (and `unset`), and forgets the process's store so the next getStore() opens it.
 */
export function useTestDataDir(dir: string, set: Record<string, string> = {}, unset: readonly string[] = []): void {
  Object.assign(process.env, {
    DATA_DIR: dir,
    EMBEDDING_PROVIDER: "offline",
    EMBEDDING_DIMENSION: "64",
    KNOWLEDGE_DIR: path.join(dir, "none"),
    ...set,
  });
  for (const k of ["REQUIRE_TOKEN", "ADMIN_TOKEN", "BIND_HOST", "EMBEDDING_MODEL", ...unset]) delete process.env[k];
  delete (globalThis as Record<symbol, unknown>)[Symbol.for("kb-mcp-chat.store")];
}

/** Undoes useTestDataDir: closes the store, forgets it, puts back the environment `saved` and removes `dir`. */
export async function leaveTestDataDir(store: { close(): Promise<void> } | undefined, saved: NodeJS.ProcessEnv, dir: string) {
  await store?.close();
  delete (globalThis as Record<symbol, unknown>)[Symbol.for("kb-mcp-chat.store")];
  process.env = saved;
  await rm(dir, { recursive: true, force: true });
}
