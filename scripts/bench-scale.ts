/**
 * `npm run bench -- --scale N [--corpus DIR] [--port 4800] [--seconds 10] [--mixed SECONDS]`: builds an N-chunk
 * store from real documents, then measures, each beside a plain BM25 (LanceDB full-text only) reference from
 * the same run: ingest MB/s and chunks/s, data dir over raw bytes after maintenance, query p50/p95 sequential
 * and req/s at concurrency 8 and 32, in process and through /api/mcp of the real server (server.mjs; run
 * `npm run build` first). --mixed S adds S seconds of mixed load (searches ~18/s, a chat every 5 s, an upload
 * every 20 s) and reports search p95 per minute against idle, errors and the server's RSS growth.
 * Numbers only; no assertions (the acceptance targets are printed beside them).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { getEmbedder } from "@/lib/embed";
import { addConcurrently, createBatchIngest, listFiles } from "@/lib/ingest";
import { createAccessToken, getRegistry } from "@/lib/kb";
import { isSupported } from "@/lib/parse";
import { searchKnowledge } from "@/lib/retrieve";
import { openStore, type Store } from "@/lib/store";
import { toIndexText } from "@/lib/tokenize";
import { TOOL } from "@/lib/tools/names";
import { McpHttp, measureMcp, sequential, summarize, type Timing, throughput } from "./bench-load";

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

const repoRoot = path.resolve(import.meta.dirname, "..");
const mb = (bytes: number) => bytes / 1e6;
const f1 = (n: number) => n.toFixed(1);

async function corpusFiles(o: ScaleOptions): Promise<string[]> {
  if (o.corpus) return (await listFiles(o.corpus)).filter(isSupported).map((f) => path.join(o.corpus!, f));
  // Default: every eval set's documents (English and Chinese), interleaved set by set.
  const out: string[] = [];
  for (const set of ["squad1.1-dev-en", "cmrc2018-dev-zh", "covidqa-en", "crud-rag-zh"]) {
    const dir = path.join(o.evalDir, set, "docs");
    if (existsSync(dir)) out.push(...(await listFiles(dir)).filter(isSupported).map((f) => path.join(dir, f)));
  }
  return out;
}

/** Queries from the store itself: a few consecutive words of random chunks (deterministic). */
async function sampleQueries(store: Store, n: number): Promise<string[]> {
  const docs = await store.listDocuments();
  const out: string[] = [];
  let seed = 12345;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  while (out.length < n && docs.length > 0) {
    const chunks = await store.getChunks(docs[Math.floor(rand() * docs.length)].id);
    const c = chunks[Math.floor(rand() * chunks.length)];
    if (!c) continue;
    const cjk = /[\u4e00-\u9fff]/.test(c.text);
    const start = Math.floor(rand() * Math.max(1, c.text.length - 40));
    const q = cjk ? c.text.slice(start, start + 14) : c.text.slice(start).split(/\s+/).slice(1, 8).join(" ");
    if (q.trim().length >= 4) out.push(q.replace(/\s+/g, " ").trim());
  }
  return out;
}

async function startServer(dataDir: string, port: number): Promise<ChildProcess> {
  if (!existsSync(path.join(repoRoot, ".next/BUILD_ID"))) throw new Error("No production build: run `npm run build` first.");
  const child = spawn(
    process.execPath,
    [path.join(repoRoot, "server.mjs"), "-p", String(port), "-H", "127.0.0.1"], // the app's entry: loopback is local
    {
      cwd: repoRoot,
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        ...(getEmbedder().dimension > 0 && { EMBEDDING_DIMENSION: String(getEmbedder().dimension) }),
        KNOWLEDGE_DIR: path.join(dataDir, "no-knowledge-folder"),
        MCP_RATE_LIMIT: "100000000",
        MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? "2", // so server.mjs serves in this pid (see there)
        LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
        NODE_ENV: "production",
      },
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    const ok = await fetch(`http://127.0.0.1:${port}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return child;
    await new Promise((r) => setTimeout(r, 500));
  }
  child.kill();
  throw new Error("the server did not become ready within 120 s");
}

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

export async function runScaleBench(o: ScaleOptions): Promise<void> {
  const embedder = getEmbedder();
  console.log(`scale bench: ${o.scale} chunks, embedder ${embedder.name}, ${os.cpus().length} CPUs, node ${process.version}`);
  console.log(`LANCE_CPU_THREADS=${process.env.LANCE_CPU_THREADS ?? "(lib/store sets it)"}\n`);
  const files = await corpusFiles(o);
  const dir = await mkdtemp(path.join(os.tmpdir(), "kb-scale-"));
  let server: ChildProcess | undefined;
  const store = await openStore({ uri: dir, embedder });
  try {
    // ---- ingest ----
    const batch = createBatchIngest(store);
    let chunks = 0,
      docs = 0,
      rawBytes = 0,
      failed = 0;
    const t0 = performance.now();
    // CPU seconds of this process (all threads, Lance's included): on a shared machine wall time says little.
    const cpu0 = process.cpuUsage();
    const cpuSeconds = (since: NodeJS.CpuUsage) => {
      const u = process.cpuUsage(since);
      return (u.user + u.system) / 1e6;
    };
    let lastReport = t0;
    let started = 0;
    const stop = () => chunks >= o.scale;
    await addConcurrently(
      files,
      async (file) => {
        const data = await readFile(file);
        const n = started++;
        try {
          const { result, failures } = await batch.add({ filename: `${n}-${path.basename(file)}`, data, kb: "bench", origin: "cli" });
          failed += failures.length;
          if (result.status !== "unchanged") {
            chunks += result.document.chunkCount;
            rawBytes += data.byteLength;
            docs++;
          }
        } catch {
          failed++;
        }
        if (performance.now() - lastReport > 10_000) {
          lastReport = performance.now();
          const s = (lastReport - t0) / 1000;
          console.log(
            `  … ${docs} docs, ${chunks} chunks, ${f1(mb(rawBytes))} MB in ${f1(s)} s (RSS ${Math.round(process.memoryUsage().rss / 1e6)} MB)`,
          );
        }
      },
      { stop },
    );
    failed += (await batch.flush()).length;
    const ingestS = (performance.now() - t0) / 1000;
    const ingestCpu = cpuSeconds(cpu0);
    const cpuM0 = process.cpuUsage();
    if (chunks < o.scale) console.log(`note: the corpus holds only ${chunks} chunks (asked for ${o.scale})`);
    const m0 = performance.now();
    await store.maintenanceIdle();
    await store.optimize({ retainMs: 0 }); // final maintenance: indices complete, old versions removed
    const maintS = (performance.now() - m0) / 1000;
    const maintCpu = cpuSeconds(cpuM0);
    const stats = await store.stats();
    const ratio = (stats.dataDirBytes ?? 0) / rawBytes;
    console.log(
      `ingest    ${docs} docs, ${chunks} chunks, ${f1(mb(rawBytes))} MB raw in ${f1(ingestS)} s (${failed} failed): ` +
        `${mb(rawBytes / ingestS).toFixed(2)} MB/s, ${Math.round(chunks / ingestS)} chunks/s   [target ≥ 2 MB/s]`,
    );
    console.log(
      `          CPU ${f1(ingestCpu)} s (${(ingestCpu / ingestS).toFixed(2)} cores busy on average): ` +
        `${mb(rawBytes / ingestCpu).toFixed(2)} MB per CPU-second, ${Math.round(chunks / ingestCpu)} chunks per CPU-second; load average ${os.loadavg()[0].toFixed(1)}`,
    );
    console.log(
      `maintain  final run ${f1(maintS)} s (CPU ${f1(maintCpu)} s); data dir ${f1(mb(stats.dataDirBytes ?? 0))} MB = ${ratio.toFixed(2)}× raw   [target ≤ 3×]; ` +
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
    server = await startServer(dir, o.port);
    const url = `http://127.0.0.1:${o.port}/api/mcp`;
    const mcp = new McpHttp(url);
    const viaMcp = (q: string) => mcp.call(TOOL.searchKnowledge, { query: q, top_k: 5 });
    console.log(`\nthrough /api/mcp (server.mjs on port ${o.port}, search_knowledge top_k 5, from a client process of its own)`);
    const seqMcp = await measureMcp({ url, queries, sequential: true });
    console.log(`  sequential ${row("", seqMcp)}   [target p50 ≤ 20 ms, p95 ≤ 50 ms]   bm25 in process p50 ${f1(seqBm25.p50)} ms`);
    for (const c of [8, 32]) {
      const t = await measureMcp({ url, queries, concurrency: c, seconds: o.seconds });
      const ref = await throughput(queries, c, Math.min(o.seconds, 5), bm25);
      console.log(
        `  concurrency ${String(c).padStart(2)}: ${f1(t.rps)} req/s, p50 ${f1(t.p50)} ms, p95 ${f1(t.p95)} ms, ${t.errors} errors` +
          `${c === 8 ? "   [target ≥ 100 req/s]" : ""}   bm25 in process ${f1(ref.rps)} req/s`,
      );
    }

    if (o.mixed > 0) await mixedLoad(o, dir, server, queries, viaMcp);
  } finally {
    if (server && server.exitCode === null) server.kill("SIGTERM");
    store.close();
    if (!o.keep) await rm(dir, { recursive: true, force: true });
    else console.log(`kept ${dir}`);
  }
}

/** The server's JS heap and memory held outside it by JS objects (Buffers…), from its /metrics, in MB. */
async function jsMemoryMb(base: string): Promise<{ heap: number; external: number }> {
  const text = await fetch(`${base}/metrics`).then((r) => r.text());
  const read = (name: string) => Number(new RegExp(`^${name} (\\S+)`, "m").exec(text)?.[1] ?? Number.NaN) / 1e6;
  return { heap: read("kb_nodejs_heap_size_used_bytes"), external: read("kb_nodejs_external_memory_bytes") };
}

/** Searches at ~18/s (open loop), a chat every 5 s, an upload (MCP add_document) every 20 s, for o.mixed seconds. */
async function mixedLoad(o: ScaleOptions, dir: string, server: ChildProcess, queries: string[], search: (q: string) => Promise<unknown>) {
  const store = await openStore({ uri: dir, embedder: getEmbedder() });
  const { secret } = await createAccessToken(store, await getRegistry(store), { name: "bench", scope: "read-write" });
  store.close();
  const writer = new McpHttp(`http://127.0.0.1:${o.port}/api/mcp`, secret);
  const base = `http://127.0.0.1:${o.port}`;
  const openLoop = async (seconds: number, onSample: (ms: number, ok: boolean) => void) => {
    const end = performance.now() + seconds * 1000;
    const inflight = new Set<Promise<void>>();
    let i = 0;
    while (performance.now() < end) {
      const s = performance.now();
      const p = search(queries[i++ % queries.length]).then(
        () => onSample(performance.now() - s, true),
        () => onSample(performance.now() - s, false),
      );
      const tracked = p.finally(() => inflight.delete(tracked));
      inflight.add(tracked);
      await new Promise((r) => setTimeout(r, 55));
    }
    await Promise.all(inflight);
  };
  const idle: number[] = [];
  await openLoop(30, (ms) => idle.push(ms));
  const idleP95 = summarize(idle).p95;
  const rss0 = await rssMb(server.pid!);
  const js0 = await jsMemoryMb(base);
  console.log(
    `\nmixed load ${o.mixed} s: idle search p95 ${f1(idleP95)} ms (30 s at ~18/s); server RSS ${Math.round(rss0)} MB (JS heap ${Math.round(js0.heap)}, external ${Math.round(js0.external)})`,
  );

  const perMinute: number[][] = [];
  let errors = 0,
    chats = 0,
    uploads = 0,
    rssPeak = rss0;
  const t0 = performance.now();
  const stop = t0 + o.mixed * 1000;
  const background = (async () => {
    let n = 0;
    while (performance.now() < stop) {
      await new Promise((r) => setTimeout(r, 5000));
      n++;
      rssPeak = Math.max(rssPeak, await rssMb(server.pid!));
      const chat = fetch(`${base}/api/chat`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Origin: base },
        body: JSON.stringify({ messages: [{ id: `m${n}`, role: "user", parts: [{ type: "text", text: queries[n % queries.length] }] }] }),
      }).then(async (r) => {
        await r.text();
        if (!r.ok) throw new Error(String(r.status));
        chats++;
      });
      const upload =
        n % 4 === 0
          ? writer
              .call(TOOL.addDocument, {
                title: `Mixed load note ${n}`,
                content: `# Note ${n}\n\n${queries.slice(n % 50, (n % 50) + 40).join(". ")}.`,
              })
              .then(() => {
                uploads++;
              })
          : Promise.resolve();
      await Promise.all([chat, upload]).catch(() => {
        errors++;
      });
    }
  })();
  await openLoop(o.mixed, (ms, ok) => {
    const minute = Math.floor((performance.now() - t0) / 60_000);
    perMinute[minute] ??= [];
    perMinute[minute].push(ms);
    if (!ok) errors++;
  });
  await background;
  const rss1 = await rssMb(server.pid!);
  const js1 = await jsMemoryMb(base);
  const p95s = perMinute.map((m) => summarize(m).p95);
  console.log(`  search p95 per minute: ${p95s.map(f1).join(", ")} ms; worst ${f1(Math.max(...p95s) / idleP95)}× idle   [target ≤ 3×]`);
  console.log(
    `  ${chats} chats, ${uploads} uploads, ${errors} errors   [target 0]; RSS ${Math.round(rss0)} → ${Math.round(rss1)} MB (peak ${Math.round(rssPeak)}), growth ${Math.round(rss1 - rss0)} MB   [target ≤ 200 MB]`,
  );
  console.log(
    `  of which JS heap ${Math.round(js0.heap)} → ${Math.round(js1.heap)} MB, external ${Math.round(js0.external)} → ${Math.round(js1.external)} MB; the rest is native (LanceDB's caches, bounded by LANCE_INDEX_CACHE_MB / LANCE_METADATA_CACHE_MB, and the allocator)`,
  );
}
