/**
 * Lance writes each file of a table under a temporary name in its folder (`.tmpXXXXXX`) and renames it once
 * written. A process killed meanwhile leaves that file for good: nothing of Lance's removes it, and a server
 * stopped during a fold at a million chunks left 560 MB (a whole chunks file). The store removes such files
 * once nothing has written to them for STALE_TEMP_MS (a writer at work keeps writing to its file; a
 * maintenance run gives up after 10 minutes), when it opens and every STALE_TEMP_MS after.
 */
import type { Dirent } from "node:fs";
import { readdir, stat, unlink } from "node:fs/promises";
import path from "node:path";
import { log } from "@/lib/log";

export const STALE_TEMP_MS = 15 * 60_000;
/** data/, _versions/, _indices/<uuid>/…: how deep a table's files lie under its `<name>.lance` folder. */
const MAX_DEPTH = 3;

/** The local folder of a store's URI (a path or file://), or null for an object store. */
export function localDir(uri: string): string | null {
  if (uri.startsWith("file://")) return uri.slice("file://".length);
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(uri) ? null : uri;
}

async function entries(dir: string): Promise<Dirent[]> {
  return readdir(dir, { withFileTypes: true }).catch(() => []);
}

/** Removes the temporary files under the store's `*.lance` table folders untouched for `staleMs`. */
export async function removeStaleTempFiles(
  dir: string,
  staleMs = STALE_TEMP_MS,
  now = Date.now(),
): Promise<{ files: number; bytes: number }> {
  const removed = { files: 0, bytes: 0 };
  const visit = async (folder: string, depth: number) => {
    for (const e of await entries(folder)) {
      const p = path.join(folder, e.name);
      if (e.isDirectory() && depth < MAX_DEPTH) await visit(p, depth + 1);
      else if (e.isFile() && e.name.startsWith(".tmp")) {
        const s = await stat(p).catch(() => null);
        if (!s || now - s.mtimeMs < staleMs) continue;
        // Renamed or removed meanwhile by whoever wrote it: nothing to do.
        if (
          await unlink(p).then(
            () => true,
            () => false,
          )
        ) {
          removed.files++;
          removed.bytes += s.size;
        }
      }
    }
  };
  for (const e of await entries(dir)) if (e.isDirectory() && e.name.endsWith(".lance")) await visit(path.join(dir, e.name), 1);
  return removed;
}

/** Removes them from a local store now and every STALE_TEMP_MS, until stop() (which waits for a sweep under way). */
export function sweepStaleTempFiles(uri: string): { stop(): Promise<void> } {
  const dir = localDir(uri);
  if (dir === null) return { stop: async () => {} };
  let running: Promise<void> = Promise.resolve();
  const sweep = () => {
    running = running.then(async () => {
      const r = await removeStaleTempFiles(dir).catch(() => ({ files: 0, bytes: 0 }));
      if (r.files > 0) log("store").warn({ files: r.files, bytes: r.bytes }, "removed temporary files a stopped writer left");
    });
  };
  sweep();
  const timer = setInterval(sweep, STALE_TEMP_MS);
  timer.unref?.();
  return {
    stop() {
      clearInterval(timer);
      return running;
    },
  };
}
