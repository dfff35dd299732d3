/**
 * Server folders (admins only: it reads the server's disk): files under the path, changed ones found by size
 * and modification time, read only then (one over SOURCE_MAX_BYTES not at all). A subfolder that cannot be
 * read is skipped with a note. The files are walked one at a time, never listed whole. The scheduler also watches
 * the folder (./scheduler.ts).
 */
import { stat } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { readInputFile, walkFiles } from "@/lib/ingest";
import type { Connector } from "./engine";
import { readable } from "./engine";
import { overLimit } from "./http";
import type { SourceConfig } from "./schema";

type FolderConfig = Extract<SourceConfig, { kind: "folder" }>;

export const folderConnector: Connector = async (ctx) => {
  const root = (ctx.source.config as FolderConfig).path;
  const unreadable: string[] = [];
  let unreadableCount = 0;
  let files = 0;
  const walk = walkFiles(root, (rel, err) => {
    if (unreadableCount++ < 5) unreadable.push(`${rel} (${(err as NodeJS.ErrnoException).code ?? err.message})`);
    // What was indexed from it stays: the folder could not be read, which is not its files being gone.
    const under = `${rel.split(path.sep).join("/")}/`;
    for (const key of ctx.previous.keys()) if (key.startsWith(under)) ctx.keep(key);
  });
  for await (const rel of walk) {
    files++;
    const key = rel.split(path.sep).join("/");
    const file = path.join(root, rel);
    const url = pathToFileURL(file).href;
    if (!readable(rel)) {
      ctx.skip(key);
      continue;
    }
    try {
      const s = await stat(file);
      if (s.size > ctx.maxBytes) {
        ctx.fail(key, overLimit(s.size, ctx.maxBytes));
        continue;
      }
      const version = `${s.size}:${s.mtimeMs}`;
      const before = ctx.previous.get(key);
      if (before?.documentId && before.version === version) {
        ctx.keep(key);
        continue;
      }
      await ctx.ingest({ key, url, name: path.basename(rel), data: await readInputFile(file), version });
    } catch (err) {
      ctx.fail(key, err instanceof Error ? err.message : String(err));
    }
  }
  const skipped = unreadableCount ? `; ${unreadableCount} unreadable folders skipped: ${unreadable.join(", ")}` : "";
  return { note: `${files} files${skipped}` };
};
