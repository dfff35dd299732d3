/**
 * `npm run bench -- --mixed S [--docs 600] [--port 4800]`: a store of that many documents (the eval sets'
 * documents, else the repo's fixtures), the real server (server.mjs; run `npm run build` first), then 30 s of
 * idle search throughput (8 closed-loop searchers through /api/mcp) and S seconds of the same searchers beside
 * an upload (MCP add_document) every 2 s and a delete (delete_document of an earlier upload) every 10 s.
 * Prints search throughput and p50 per minute against idle, errors, and the server's RSS before, at the end
 * and after a minute idle, then idle throughput once more (other load on the machine moves it too).
 * Then the same searchers beside a source sync: a web source (a site of SYNC_PAGES pages served by the bench on
 * loopback) crawled by the server, first in full, then again with a tenth of the pages changed.
 * `--scale N --mixed S` runs the same load on the N-chunk store. Numbers only; targets beside them.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { serveTestSite } from "@/e2e/helpers/test-site";
import { getEmbedder } from "@/lib/embed";
import { addConcurrently, createBatchIngest } from "@/lib/ingest";
import { createAccessToken, getRegistry } from "@/lib/kb";
import { fileNameOf } from "@/lib/kb/fields";
import { openStore } from "@/lib/store";
import { measureMcp } from "./bench-load";
import { corpusFiles, jsMemoryMb, rssMb, sampleQueries, startServer } from "./bench-server";

const f1 = (n: number) => n.toFixed(1);
const CONCURRENCY = 8;
const IDLE_SECONDS = 30;
const UPLOAD_MS = 2000;
const DELETE_MS = 10_000;

export interface MixedOptions {
  docs: number;
  evalDir: string;
  corpus?: string;
  port: number;
  seconds: number;
  keep: boolean;
}

export async function runMixedBench(o: MixedOptions): Promise<void> {
  let files = await corpusFiles(o.evalDir, o.corpus);
  if (files.length === 0) {
    console.log(`no eval sets under ${o.evalDir} (see ../shared/eval); using the repo's fixtures, a smaller store`);
    files = await corpusFiles(path.resolve(import.meta.dirname, "../fixtures/eval"), path.resolve(import.meta.dirname, "../fixtures/eval"));
  }
  const embedder = getEmbedder();
  console.log(`mixed bench: ${o.docs} documents, embedder ${embedder.name}, ${os.cpus().length} CPUs, node ${process.version}`);
  const dir = await mkdtemp(path.join(os.tmpdir(), "kb-mixed-"));
  let server: ChildProcess | undefined;
  try {
    const store = await openStore({ uri: dir, embedder });
    const batch = createBatchIngest(store);
    let docs = 0;
    let chunks = 0;
    let used = 0;
    await addConcurrently(
      files,
      async (file) => {
        used++;
        const { result } = await batch.add({
          filename: fileNameOf(path.basename(file)),
          data: await readFile(file),
          kb: "bench",
          origin: "cli",
        });
        if (result.status !== "unchanged") {
          docs++;
          chunks += result.document.chunkCount;
        }
      },
      { stop: () => docs >= o.docs },
    );
    await batch.flush();
    await store.maintenanceIdle();
    await store.optimize({ retainMs: 0 });
    const queries = await sampleQueries(store, 200);
    store.close();
    console.log(`store: ${docs} documents, ${chunks} chunks${docs < o.docs ? ` (the corpus holds only ${docs})` : ""}`);
    // Uploads: the text files after those in the store (else the store's own), each made unique by its number.
    const rest = files.slice(used).filter((f) => /\.(md|txt)$/i.test(f));
    const pool = rest.length > 0 ? rest : files.filter((f) => /\.(md|txt)$/i.test(f));
    const contents = await Promise.all(pool.slice(0, 100).map((f) => readFile(f, "utf8")));
    server = await startServer(dir, o.port);
    await mixedLoad({ port: o.port, dir, server, queries, seconds: o.seconds, contents });
  } finally {
    if (server && server.exitCode === null) server.kill("SIGTERM");
    if (!o.keep) await rm(dir, { recursive: true, force: true });
    else console.log(`kept ${dir}`);
  }
}

/** Store figures from the server's /metrics: rows and versions per table, data dir size, maintenance runs. */
async function storeMetrics(base: string): Promise<string> {
  const text = await fetch(`${base}/metrics`).then((r) => r.text());
  const pick = (re: RegExp) => [...text.matchAll(re)].map((m) => `${m[1]}=${Math.round(Number(m[2]))}`).join(" ");
  return [
    `rows ${pick(/^kb_store_rows\{table="(chunks|documents)"\} (\S+)/gm)}`,
    `versions ${pick(/^kb_store_versions\{table="(chunks|documents)"\} (\S+)/gm)}`,
    `data dir ${f1(Number(/^kb_data_dir_bytes (\S+)/m.exec(text)?.[1] ?? 0) / 1e6)} MB`,
    `maintenance runs ${pick(/^kb_maintenance_runs_total\{outcome="(\w+)"\} (\S+)/gm)}`,
  ].join(", ");
}

export interface MixedLoadInput {
  port: number;
  dir: string;
  server: ChildProcess;
  queries: string[];
  seconds: number;
  /** Texts to upload, one after the other (cycled). */
  contents: string[];
}

export async function mixedLoad({ port, dir, server, queries, seconds, contents }: MixedLoadInput): Promise<void> {
  const store = await openStore({ uri: dir, embedder: getEmbedder() });
  const { secret } = await createAccessToken(store, await getRegistry(store), { name: "bench", scope: "read-write" });
  store.close();
  const base = `http://127.0.0.1:${port}`;
  const url = `${base}/api/mcp`;
  const rss = async () => Math.round(await rssMb(server.pid!));
  const memory = async () => {
    const js = await jsMemoryMb(base);
    return `RSS ${await rss()} MB (JS heap ${Math.round(js.heap)}, external ${Math.round(js.external)})`;
  };

  const idle = await measureMcp({ url, queries, concurrency: CONCURRENCY, seconds: IDLE_SECONDS });
  const rss0 = await rss();
  console.log(
    `\nidle: ${f1(idle.rps)} searches/s, p50 ${f1(idle.p50)} ms, p95 ${f1(idle.p95)} ms, ${idle.errors} errors ` +
      `(${CONCURRENCY} searchers, ${IDLE_SECONDS} s); server ${await memory()}`,
  );
  console.log(`  store: ${await storeMetrics(base)}`);
  console.log(
    `mixed load ${seconds} s: ${CONCURRENCY} searchers, an upload every ${UPLOAD_MS / 1000} s, a delete every ${DELETE_MS / 1000} s`,
  );
  let peak = rss0;
  const sampler = setInterval(() => {
    void rss().then((r) => {
      peak = Math.max(peak, r);
    });
  }, 5000);
  const r = await measureMcp({
    url,
    queries,
    concurrency: CONCURRENCY,
    seconds,
    writes: { token: secret, contents, uploadMs: UPLOAD_MS, deleteMs: DELETE_MS },
  }).finally(() => clearInterval(sampler));
  for (const [i, m] of r.minutes.entries())
    console.log(
      `  minute ${i + 1}${m.seconds < 60 ? ` (${f1(m.seconds)} s)` : ""}: ${f1(m.rps)} searches/s = ${Math.round((100 * m.rps) / idle.rps)} % of idle` +
        `   [target ≥ 80 %]; p50 ${f1(m.p50)} ms (${f1(m.p50 / idle.p50)}× idle), p95 ${f1(m.p95)} ms, ${m.errors} errors`,
    );
  const worst = Math.min(...r.minutes.map((m) => m.rps / idle.rps));
  console.log(
    `  worst minute ${Math.round(100 * worst)} % of idle; ${r.uploads} uploads (p50 ${f1(r.uploadMs.p50)} ms), ${r.deletes} deletes ` +
      `(p50 ${f1(r.deleteMs.p50)} ms), ${r.writeErrors} write errors${r.firstWriteError ? ` (first: ${r.firstWriteError})` : ""}`,
  );
  const rss1 = await rss();
  console.log(`  at the end: server ${await memory()}, peak RSS ${Math.max(peak, rss1)} MB`);
  console.log(`  store: ${await storeMetrics(base)}`);
  await new Promise((res) => setTimeout(res, 60_000));
  const rss2 = await rss();
  console.log(`  after a minute idle: server ${await memory()}`);
  console.log(`  store: ${await storeMetrics(base)}`);
  console.log(
    `  RSS growth ${rss1 - rss0} MB at the end, ${rss2 - rss0} MB after a minute idle (${rss0} → ${rss2} MB)   [target < 150 MB]`,
  );
  await syncLoad(base, url, queries, idle.rps);
  // The machine's other load moves the idle figure too: measured again, for reference.
  const again = await measureMcp({ url, queries, concurrency: CONCURRENCY, seconds: IDLE_SECONDS });
  console.log(`  idle again (reference): ${f1(again.rps)} searches/s, p50 ${f1(again.p50)} ms, ${again.errors} errors`);
}

const SYNC_PAGES = 300;

/** Searches beside a web source's sync: a full crawl, then a re-sync with a tenth of the pages changed. */
async function syncLoad(base: string, url: string, queries: string[], idleRps: number): Promise<void> {
  const site = await serveTestSite();
  const words = (i: number) => Array.from({ length: 120 }, (_, w) => `term${(i * 7 + w) % 997}`).join(" ");
  const page = (i: number, v: number) => ({
    type: "text/html",
    body: `<html><head><title>Bench page ${i}</title></head><body><main><h1>Page ${i}</h1><p>${words(i + v)}</p></main></body></html>`,
  });
  const links = Array.from({ length: SYNC_PAGES }, (_, i) => `<a href="/bench/p${i}.html">${i}</a>`).join(" ");
  site.pages.set("/bench/", { type: "text/html", body: `<html><body><main>${links}</main></body></html>` });
  for (let i = 0; i < SYNC_PAGES; i++) site.pages.set(`/bench/p${i}.html`, page(i, 0));
  const api = `${base}/api/kbs/bench/sources`;
  try {
    const res = await fetch(api, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ kind: "web", url: `${site.base}/bench/`, maxPages: SYNC_PAGES + 1, maxDepth: 1, scheduleMinutes: 0 }),
    });
    if (res.status !== 201) throw new Error(`adding the source answered ${res.status}: ${await res.text()}`);
    const { source } = (await res.json()) as { source: { id: string } };
    for (const [label, start] of [
      ["full crawl", async () => {}],
      [
        "re-sync, a tenth changed",
        async () => {
          for (let i = 0; i < SYNC_PAGES; i += 10) site.pages.set(`/bench/p${i}.html`, page(i, 1));
          await fetch(`${api}/${source.id}/sync`, { method: "POST" });
        },
      ],
    ] as const) {
      const t0 = performance.now();
      await start();
      const running = async () => {
        const list = (await (await fetch(api)).json()) as { sources: { id: string; running: unknown; lastRun: unknown }[] };
        const s = list.sources.find((x) => x.id === source.id);
        return !!s?.running;
      };
      const during: { rps: number; p50: number; p95: number; errors: number }[] = [];
      while (await running()) during.push(await measureMcp({ url, queries, concurrency: CONCURRENCY, seconds: 5 }));
      const secs = (performance.now() - t0) / 1000;
      const list = (await (await fetch(api)).json()) as { sources: { lastRun: Record<string, unknown> & { failed: unknown[] } }[] };
      const run = list.sources[0].lastRun;
      const rps = during.length ? during.reduce((a, d) => a + d.rps, 0) / during.length : Number.NaN;
      const p95 = during.length ? Math.max(...during.map((d) => d.p95)) : Number.NaN;
      console.log(
        `sync (${label}, ${SYNC_PAGES + 1} pages): ${f1(secs)} s, ${run.added} added, ${run.updated} updated, ${run.unchanged} unchanged; ` +
          `searches meanwhile ${f1(rps)}/s = ${Math.round((100 * rps) / idleRps)} % of idle, worst p95 ${f1(p95)} ms, ` +
          `${during.reduce((a, d) => a + d.errors, 0)} errors`,
      );
    }
  } finally {
    await site.close();
  }
}
