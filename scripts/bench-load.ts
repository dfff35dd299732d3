/**
 * The bench's load: timings, an MCP client over plain HTTP, sequential and concurrent runs. The runs through
 * /api/mcp go in a process of their own (measureMcp): run from the bench's own process, which holds the
 * 100,000-chunk store it just built (about 1 GB), the client's garbage collection and LanceDB's threads took
 * CPU from the server on a 2-core machine (sequential p50 23.1 ms and 87.5 req/s at concurrency 8, against
 * 16.3–18.6 ms and 103–124 req/s from a client process of its own against the same server).
 */
import { spawn } from "node:child_process";
import { percentile } from "@/lib/retrieve/eval-metrics";
import { TOOL } from "@/lib/tools/names";

export interface Timing {
  p50: number;
  p95: number;
  mean: number;
}
export function summarize(ms: number[]): Timing {
  const s = [...ms].sort((a, b) => a - b);
  return { p50: percentile(s, 50), p95: percentile(s, 95), mean: s.reduce((a, b) => a + b, 0) / Math.max(1, s.length) };
}

export async function sequential(queries: string[], run: (q: string) => Promise<unknown>): Promise<Timing> {
  for (const q of queries.slice(0, 10)) await run(q); // warm-up
  const ms: number[] = [];
  for (const q of queries) {
    const t0 = performance.now();
    await run(q);
    ms.push(performance.now() - t0);
  }
  return summarize(ms);
}

/** `concurrency` clients for `seconds`, each sending the next query as soon as its last one answered. */
export async function throughput(queries: string[], concurrency: number, seconds: number, run: (q: string) => Promise<unknown>) {
  const end = performance.now() + seconds * 1000;
  let next = 0;
  let done = 0;
  let errors = 0;
  const ms: number[] = [];
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const q = queries[next++ % queries.length];
        const s = performance.now();
        try {
          await run(q);
          done++;
        } catch {
          errors++;
        }
        ms.push(performance.now() - s);
      }
    }),
  );
  return { rps: done / ((performance.now() - t0) / 1000), errors, ...summarize(ms) };
}

export class McpHttp {
  private id = 0;
  constructor(
    private url: string,
    private token?: string,
  ) {}
  async call(name: string, args: Record<string, unknown>): Promise<unknown> {
    const res = await fetch(this.url, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        ...(this.token ? { Authorization: `Bearer ${this.token}` } : {}),
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++this.id, method: "tools/call", params: { name, arguments: args } }),
    });
    const body = (await res.json()) as { result?: { isError?: boolean; content?: { text: string }[] }; error?: { message: string } };
    if (!res.ok || body.error || body.result?.isError)
      throw new Error(`${res.status} ${body.error?.message ?? body.result?.content?.[0]?.text ?? ""}`);
    return body.result;
  }
}

/** Writes beside the searches: an upload (add_document) of the next content every uploadMs, a delete of the oldest upload every deleteMs. */
export interface MixedWrites {
  token: string;
  contents: string[];
  uploadMs: number;
  deleteMs: number;
}
type McpJob = { url: string; queries: string[] } & (
  | { sequential: true }
  | { concurrency: number; seconds: number }
  | { concurrency: number; seconds: number; writes: MixedWrites }
);
type Throughput = Awaited<ReturnType<typeof throughput>>;
export interface MinuteStats {
  seconds: number;
  searches: number;
  rps: number;
  p50: number;
  p95: number;
  errors: number;
}
export interface MixedResult {
  minutes: MinuteStats[];
  uploads: number;
  deletes: number;
  writeErrors: number;
  firstWriteError?: string;
  uploadMs: Timing;
  deleteMs: Timing;
}

/** Runs search_knowledge over `queries` in a child process (this file as its entry) and returns its timings. */
export function measureMcp(job: McpJob & { sequential: true }): Promise<Timing>;
export function measureMcp(job: McpJob & { writes: MixedWrites }): Promise<MixedResult>;
export function measureMcp(job: McpJob & { concurrency: number }): Promise<Throughput>;
export function measureMcp(job: McpJob): Promise<Timing | Throughput | MixedResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, import.meta.filename], { stdio: ["pipe", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`the bench client exited with ${code}`))));
    child.stdin.end(JSON.stringify(job));
  });
}

/**
 * `concurrency` closed-loop searchers for `seconds` beside the writes; searches are counted in the minute
 * they end in.
 */
async function mixed(url: string, queries: string[], concurrency: number, seconds: number, w: MixedWrites): Promise<MixedResult> {
  const search = new McpHttp(url);
  const writer = new McpHttp(url, w.token);
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  const buckets: { ms: number[]; errors: number }[] = [];
  const bucket = () => {
    const m = Math.min(Math.floor((performance.now() - t0) / 60_000), Math.ceil(seconds / 60) - 1);
    buckets[m] ??= { ms: [], errors: 0 };
    return buckets[m];
  };
  let next = 0;
  const searchers = Array.from({ length: concurrency }, async () => {
    while (performance.now() < end) {
      const s = performance.now();
      try {
        await search.call(TOOL.searchKnowledge, { query: queries[next++ % queries.length], top_k: 5 });
        bucket().ms.push(performance.now() - s);
      } catch {
        bucket().errors++;
      }
    }
  });
  const r: MixedResult = { minutes: [], uploads: 0, deletes: 0, writeErrors: 0, uploadMs: summarize([]), deleteMs: summarize([]) };
  const uploadMs: number[] = [];
  const deleteMs: number[] = [];
  const uploaded: string[] = [];
  const failed = (err: unknown) => {
    r.writeErrors++;
    r.firstWriteError ??= err instanceof Error ? err.message : String(err);
  };
  /** Runs `fn` every `ms` until the end, one at a time (a late one starts the next at once). */
  const every = async (ms: number, fn: (n: number) => Promise<void>) => {
    for (let n = 1; t0 + n * ms < end; n++) {
      await new Promise((res) => setTimeout(res, Math.max(0, t0 + n * ms - performance.now())));
      await fn(n).catch(failed);
    }
  };
  const uploads = every(w.uploadMs, async (n) => {
    const s = performance.now();
    const out = (await writer.call(TOOL.addDocument, {
      title: `Mixed load upload ${n}`,
      content: `${w.contents[n % w.contents.length]}\n\nUpload ${n}.\n`,
    })) as { structuredContent: { document: { id: string } } };
    uploadMs.push(performance.now() - s);
    uploaded.push(out.structuredContent.document.id);
    r.uploads++;
  });
  const deletes = every(w.deleteMs, async () => {
    const id = uploaded.shift();
    if (!id) return;
    const s = performance.now();
    await writer.call(TOOL.deleteDocument, { document_id: id });
    deleteMs.push(performance.now() - s);
    r.deletes++;
  });
  await Promise.all([...searchers, uploads, deletes]);
  r.minutes = buckets.map((b, m) => {
    const secs = Math.min(60, seconds - m * 60);
    return { seconds: secs, searches: b.ms.length, rps: b.ms.length / secs, errors: b.errors, ...summarize(b.ms) };
  });
  r.uploadMs = summarize(uploadMs);
  r.deleteMs = summarize(deleteMs);
  return r;
}

async function clientMain() {
  let input = "";
  for await (const chunk of process.stdin) input += chunk;
  const job = JSON.parse(input) as McpJob;
  const mcp = new McpHttp(job.url);
  const search = (q: string) => mcp.call(TOOL.searchKnowledge, { query: q, top_k: 5 });
  const result =
    "sequential" in job
      ? await sequential(job.queries, search)
      : "writes" in job
        ? await mixed(job.url, job.queries, job.concurrency, job.seconds, job.writes)
        : await throughput(job.queries, job.concurrency, job.seconds, search);
  process.stdout.write(JSON.stringify(result));
}

if (process.argv[1] === import.meta.filename) await clientMain();
