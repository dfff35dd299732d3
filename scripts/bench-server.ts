/** The bench's pieces around the real server: the corpus, queries from a store, starting server.mjs, its memory. */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { allocatorEnv } from "@/lib/allocator.mjs";
import { getEmbedder } from "@/lib/embed";
import { listFiles } from "@/lib/ingest";
import { isSupported } from "@/lib/parse";
import type { Store } from "@/lib/store";
import { hasCjk } from "@/lib/text/cjk";

const repoRoot = path.resolve(import.meta.dirname, "..");

/** `corpus`'s files, else every eval set's documents (English and Chinese) under `evalDir`, set by set. */
export async function corpusFiles(evalDir: string, corpus?: string): Promise<string[]> {
  if (corpus) return (await listFiles(corpus)).filter(isSupported).map((f) => path.join(corpus, f));
  const out: string[] = [];
  for (const set of ["squad1.1-dev-en", "cmrc2018-dev-zh", "covidqa-en", "crud-rag-zh"]) {
    const dir = path.join(evalDir, set, "docs");
    if (existsSync(dir)) out.push(...(await listFiles(dir)).filter(isSupported).map((f) => path.join(dir, f)));
  }
  return out;
}

/** Queries from the store itself: a few consecutive words of random chunks (deterministic). */
export async function sampleQueries(store: Store, n: number): Promise<string[]> {
  const docs = await store.listDocuments();
  const out: string[] = [];
  let seed = 12345;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  for (let tries = 0; out.length < n && docs.length > 0 && tries < 20 * n; tries++) {
    const chunks = await store.getChunks(docs[Math.floor(rand() * docs.length)].id);
    const c = chunks[Math.floor(rand() * chunks.length)];
    if (!c) continue;
    const cjk = hasCjk(c.text);
    const start = Math.floor(rand() * Math.max(1, c.text.length - 40));
    const q = cjk ? c.text.slice(start, start + 14) : c.text.slice(start).split(/\s+/).slice(1, 8).join(" ");
    if (q.trim().length >= 4) out.push(q.replace(/\s+/g, " ").trim());
  }
  return out;
}

export async function startServer(dataDir: string, port: number): Promise<ChildProcess> {
  if (!existsSync(path.join(repoRoot, ".next/BUILD_ID"))) throw new Error("No production build: run `npm run build` first.");
  const child = spawn(
    process.execPath,
    [path.join(repoRoot, "server.mjs"), "-p", String(port), "-H", "127.0.0.1"], // the app's entry; LOCAL_OWNER: loopback is the owner
    {
      cwd: repoRoot,
      // With the allocator applied, server.mjs serves in this pid (its RSS is what the bench reads), as `npm start` would.
      env: allocatorEnv({
        ...process.env,
        DATA_DIR: dataDir,
        ...(getEmbedder().dimension > 0 && { EMBEDDING_DIMENSION: String(getEmbedder().dimension) }),
        KNOWLEDGE_DIR: path.join(dataDir, "no-knowledge-folder"),
        MCP_RATE_LIMIT: "100000000",
        LOCAL_OWNER: "1",
        // The mixed bench's sync scenario crawls a site it serves on loopback.
        SOURCE_ALLOW_HOSTS: "127.0.0.1",
        SOURCE_WEB_DELAY_MS: "0",
        LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
        NODE_ENV: "production",
      }),
      // BENCH_SERVER_LOG=1 shows the server's log (with LOG_LEVEL=info, each maintenance run and what it deferred).
      stdio: ["ignore", process.env.BENCH_SERVER_LOG ? "inherit" : "ignore", "inherit"],
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

export async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** The server's JS heap and memory held outside it by JS objects (Buffers…), from its /metrics, in MB. */
export async function jsMemoryMb(base: string): Promise<{ heap: number; external: number }> {
  const text = await fetch(`${base}/metrics`).then((r) => r.text());
  const read = (name: string) => Number(new RegExp(`^${name} (\\S+)`, "m").exec(text)?.[1] ?? Number.NaN) / 1e6;
  return { heap: read("kb_nodejs_heap_size_used_bytes"), external: read("kb_nodejs_external_memory_bytes") };
}
