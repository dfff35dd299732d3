import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { getEmbedder } from "@/lib/embed";
import { type EvalSet, ingestSet } from "@/lib/retrieve/eval-harness";
import { openStore } from "@/lib/store";
import { serveMcp } from "./harness";

/** `n` of `d` and its percentage, for the eval reports. */
export const pct = (n: number, d: number) => `${n}/${d} (${d ? ((100 * n) / d).toFixed(1) : "0.0"} %)`;

/**
 * A store holding the eval set's documents and the app's MCP endpoint over it. In `keep`, a folder that is
 * ingested once (a `.ingested` marker says so) and kept; without it, a temp folder (named after `prefix`) that
 * close() removes.
 */
export async function openSetChat(set: EvalSet, keep: string | undefined, prefix: string) {
  const dir = keep ? path.resolve(keep) : await mkdtemp(path.join(os.tmpdir(), prefix));
  const marker = path.join(dir, ".ingested");
  const store = await openStore({ uri: dir, embedder: getEmbedder() });
  const mcp = await serveMcp(store);
  const close = async () => {
    await mcp.close();
    await store.close();
    if (!keep) await rm(dir, { recursive: true, force: true });
  };
  try {
    if (!existsSync(marker)) {
      console.log(`${path.basename(set.dir)}: ingesting ${set.docs.length} documents into ${dir}`);
      const r = await ingestSet(store, set, set.docs, (done, total) => {
        if (done % 50 === 0 || done === total) process.stdout.write(`  ${done}/${total}\r`);
      });
      console.log(`  ingested in ${r.seconds.toFixed(1)} s (${r.chunks} chunks)`);
      if (keep) await writeFile(marker, path.basename(set.dir));
    }
  } catch (err) {
    await close();
    throw err;
  }
  return { store, mcp, close };
}
