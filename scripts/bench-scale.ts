/**
 * `npm run bench -- --scale N [--corpus DIR] [--port 4800] [--seconds 10] [--mixed SECONDS]`: builds an N-chunk
 * store from real documents, then measures, each beside a plain BM25 (LanceDB full-text only) reference from
 * the same run: ingest MB/s and chunks/s, data dir over raw bytes after maintenance, query p50/p95 sequential
 * and req/s at concurrency 8 and 32, in process and through /api/mcp of the real server (server.mjs; run
 * `npm run build` first). --mixed S adds S seconds of mixed load (scripts/bench-mixed.ts: 8 searchers, an upload
 * every 2 s, a delete every 10 s) and reports search throughput per minute against idle, errors and the server's RSS.
 * Numbers only; no assertions (the acceptance targets are printed beside them).
 */
import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { getEmbedder } from "@/lib/embed";
import { searchKnowledge } from "@/lib/retrieve";
import { openStore } from "@/lib/store";
import { toIndexText } from "@/lib/tokenize/index-text";
import { fts5Reference } from "./bench-fts5";
import { cpuSeconds, f1, ingestCorpus, mb, printIngest } from "./bench-ingest";
import { measureMcp, sequential, type Timing, throughput } from "./bench-load";
import { mixedLoad } from "./bench-mixed";
import { corpusFiles, sampleQueries, startServer } from "./bench-server";

export interface ScaleOptions {
  scale: number;
  corpus?: string;
  evalDir: string;
  port: number;
  seconds: number;
  queries: number;
  mixed: number;
  keep: boolean;
}

export async function runScaleBench(o: ScaleOptions): Promise<void> {
  const embedder = getEmbedder();
  console.log(`scale bench: ${o.scale} chunks, embedder ${embedder.name}, ${os.cpus().length} CPUs, node ${process.version}`);
  console.log(`LANCE_CPU_THREADS=${process.env.LANCE_CPU_THREADS ?? "(lib/store sets it)"}\n`);
  const files = await corpusFiles(o.evalDir, o.corpus);
  const dir = await mkdtemp(path.join(os.tmpdir(), "kb-scale-"));
  let server: ChildProcess | undefined;
  const store = await openStore({ uri: dir, embedder });
  try {
    // ---- ingest ----
    const ing = await ingestCorpus(store, files, o.scale);
    const { chunks, rawBytes } = ing;
    const ingestS = ing.seconds;
    const cpuM0 = process.cpuUsage();
    const m0 = performance.now();
    // What `npm run ingest` does at its end: maintenance, then again once the last versions are past the
    // retention (STORE_VERSION_RETENTION_S, 60 s): the data dir "one minute after the ingest ends".
    await store.maintenanceIdle();
    await store.settle();
    const maintS = (performance.now() - m0) / 1000;
    const maintCpu = cpuSeconds(cpuM0);
    const stats = await store.stats();
    const ratio = (stats.dataDirBytes ?? 0) / rawBytes;
    printIngest(ing, o.scale, os.loadavg()[0]);
    console.log(
      `maintain  until settled ${f1(maintS)} s (CPU ${f1(maintCpu)} s); data dir ${f1(mb(stats.dataDirBytes ?? 0))} MB = ${ratio.toFixed(2)}× raw   [target ≤ 3×]; ` +
        `versions ${JSON.stringify(stats.versions)}; peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB`,
    );
    const vectorBytes = chunks * embedder.dimension * 4;
    if (vectorBytes > 0)
      console.log(
        `          raw text + vectors (${embedder.dimension} × float32) = ${f1(mb(rawBytes + vectorBytes))} MB; data dir = ${((stats.dataDirBytes ?? 0) / (rawBytes + vectorBytes)).toFixed(2)}× that`,
      );

    // ---- queries in process ----
    const queries = await sampleQueries(store, o.queries);
    const hybrid = (q: string) => searchKnowledge(store, { query: q, topK: 5 });
    const bm25 = (q: string) => store.textSearch(toIndexText(q), { limit: 5 });
    const row = (label: string, t: Timing) => `${label} p50 ${f1(t.p50)} ms  p95 ${f1(t.p95)} ms  mean ${f1(t.mean)} ms`;
    console.log(`\nqueries (${queries.length}, sequential, in process)`);
    const seqHybrid = await sequential(queries, hybrid);
    const seqBm25 = await sequential(queries, bm25);
    console.log(`  ${row("hybrid", seqHybrid)}   (×${(seqHybrid.p50 / seqBm25.p50).toFixed(2)} p50 vs bm25)`);
    console.log(`  ${row("bm25  ", seqBm25)}`);

    // ---- through /api/mcp ----
    const started = performance.now();
    server = await startServer(dir, o.port);
    const readyS = (performance.now() - started) / 1000;
    const url = `http://127.0.0.1:${o.port}/api/mcp`;
    console.log(
      `\nthrough /api/mcp (server.mjs on port ${o.port}, ready in ${f1(readyS)} s [target ≤ 30 s]; search_knowledge top_k 5, from a client process of its own)`,
    );
    const seqMcp = await measureMcp({ url, queries, sequential: true });
    console.log(`  sequential ${row("", seqMcp)}   [target p50 ≤ 20 ms, p95 ≤ 50 ms]   bm25 in process p50 ${f1(seqBm25.p50)} ms`);
    let rps8 = 0;
    for (const c of [8, 32]) {
      const t = await measureMcp({ url, queries, concurrency: c, seconds: o.seconds });
      if (c === 8) rps8 = t.rps;
      const ref = await throughput(queries, c, Math.min(o.seconds, 5), bm25);
      console.log(
        `  concurrency ${String(c).padStart(2)}: ${f1(t.rps)} req/s, p50 ${f1(t.p50)} ms, p95 ${f1(t.p95)} ms, ${t.errors} errors` +
          `${c === 8 ? "   [target ≥ 150 req/s]" : ""}   bm25 in process ${f1(ref.rps)} req/s`,
      );
    }

    await fts5Reference({
      store,
      dir,
      port: o.port + 1,
      queries,
      seconds: o.seconds,
      ours: { seq: seqHybrid, rps8, dataDirBytes: stats.dataDirBytes ?? 0, ingestSeconds: ingestS },
    });

    if (o.mixed > 0) {
      const contents = queries.map((_, n) => `# Note ${n}\n\n${queries.slice(n % 50, (n % 50) + 40).join(". ")}.`);
      await mixedLoad({ port: o.port, dir, server, queries, seconds: o.mixed, contents });
    }
  } finally {
    if (server && server.exitCode === null) server.kill("SIGTERM");
    await store.close();
    if (!o.keep) await rm(dir, { recursive: true, force: true });
    else console.log(`kept ${dir}`);
  }
}
