/** Test-only: fresh temp dirs for a test file, all removed after its tests. */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll } from "vitest";

/** A maker of temp dirs named after `prefix`; every dir it made is removed after the calling file's tests. */
export function tempDirs(prefix: string): () => Promise<string> {
  const dirs: string[] = [];
  afterAll(async () => {
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 })));
  });
  return async () => {
    const d = await mkdtemp(path.join(os.tmpdir(), prefix));
    dirs.push(d);
    return d;
  };
}
