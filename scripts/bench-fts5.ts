/**
 * SQLite FTS5 as the scale bench's reference, in the same run and over the same chunks: its build time and
 * size, in-process query p50/p95, and req/s at concurrency 8 through an equally thin MCP server
 * (scripts/fts5-mcp-server.ts), printed beside ours as ratios.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { stat } from "node:fs/promises";
import path from "node:path";
import * as lancedb from "@lancedb/lancedb";
import { openFts5Reference } from "@/lib/retrieve/fts5-reference";
import type { Store } from "@/lib/store";
import { measureMcp, sequential, type Timing } from "./bench-load";

export interface Ours {
  seq: Timing;
  rps8: number;
  dataDirBytes: number;
  ingestSeconds: number;
}

const f1 = (n: number) => n.toFixed(1);
const repoRoot = path.resolve(import.meta.dirname, "..");

/**
 * Builds the FTS5 file `file` from every chunk of the store at `dir`, read in one pass over its chunks table
 * (a query per document scanned the table once per document: over an hour at 1M chunks); seconds and rows.
 */
async function build(store: Store, dir: string, file: string): Promise<{ seconds: number; rows: number }> {
  const fts5 = openFts5Reference(file);
  const t0 = performance.now();
  let rows = 0;
  const conn = await lancedb.connect(dir);
  try {
    const titles = new Map((await store.listDocuments()).map((d) => [d.id, d.title]));
    const chunks = await conn.openTable("chunks");
    for await (const batch of chunks.query().select(["id", "document_id", "text"])) {
      const [ids, docs, texts] = ["id", "document_id", "text"].map((c) => batch.getChild(c)!);
      const passages = [];
      for (let i = 0; i < batch.numRows; i++) {
        const doc = String(docs.get(i));
        const title = titles.get(doc);
        if (title !== undefined) passages.push({ id: String(ids.get(i)), doc, title, text: String(texts.get(i)) });
      }
      fts5.add(passages);
      rows += passages.length;
    }
  } finally {
    fts5.close();
    conn.close();
  }
  return { seconds: (performance.now() - t0) / 1000, rows };
}

async function startReference(file: string, port: number): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [path.join(repoRoot, "node_modules/tsx/dist/cli.mjs"), "scripts/fts5-mcp-server.ts", file, String(port)],
    {
      cwd: repoRoot,
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (d) => String(d).includes("ready") && resolve());
    child.on("exit", (code) => reject(new Error(`the FTS5 reference server exited with ${code}`)));
  });
  return child;
}

export async function fts5Reference(o: { store: Store; dir: string; port: number; queries: string[]; seconds: number; ours: Ours }) {
  const file = path.join(o.dir, "fts5-reference.sqlite");
  const built = await build(o.store, o.dir, file);
  const bytes = (await stat(file)).size;
  const fts5 = openFts5Reference(file);
  const seq = await sequential(o.queries, async (q) => fts5.search(q, 5));
  fts5.close();
  const server = await startReference(file, o.port);
  try {
    const url = `http://127.0.0.1:${o.port}/mcp`;
    const mcpSeq = await measureMcp({ url, queries: o.queries, sequential: true });
    const c8 = await measureMcp({ url, queries: o.queries, concurrency: 8, seconds: o.seconds });
    console.log(`\nSQLite FTS5 reference (same chunks, porter unicode61, Han as pairs, title ×2, BM25, top 5, no reranking)`);
    console.log(
      `  build ${f1(built.seconds)} s over ${built.rows} chunks (ours: ingest ${f1(o.ours.ingestSeconds)} s, parsing and chunking included)`,
    );
    console.log(
      `  size ${f1(bytes / 1e6)} MB (ours: data dir ${f1(o.ours.dataDirBytes / 1e6)} MB, ×${(o.ours.dataDirBytes / bytes).toFixed(2)})`,
    );
    console.log(
      `  in process p50 ${f1(seq.p50)} ms  p95 ${f1(seq.p95)} ms   ours p50 ${f1(o.ours.seq.p50)} ms = ×${(o.ours.seq.p50 / seq.p50).toFixed(2)} of FTS5   [target ≤ 1.5×]`,
    );
    console.log(`  through MCP sequential p50 ${f1(mcpSeq.p50)} ms  p95 ${f1(mcpSeq.p95)} ms`);
    console.log(
      `  through MCP concurrency 8: ${f1(c8.rps)} req/s, ${c8.errors} errors   ours ${f1(o.ours.rps8)} req/s = ×${(o.ours.rps8 / c8.rps).toFixed(2)} of FTS5`,
    );
  } finally {
    server.kill("SIGTERM");
  }
}
