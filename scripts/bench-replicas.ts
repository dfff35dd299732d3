/**
 * `npm run bench -- --replicas N [--corpus DIR] [--port 4800] [--seconds 10]`: stateless replicas on one
 * object-store dataset at scale. N chunks are ingested into `s3://…` on a local S3-compatible server
 * (s3rver, e2e/helpers/s3.ts) and, for reference, into a local folder; two app servers (server.mjs, `npm run
 * build` first) serve the s3:// dataset and a third the folder. Checked, as in e2e/object-store.spec.ts but at
 * this size: a document added through replica A is found through B, a delete through B is seen by A (the
 * bench exits with 1 when either does not happen within 30 s). Measured: each one's search p50/p95 through
 * /api/mcp and req/s at concurrency 8, and how long a write takes to be seen by the other replica.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { getEmbedder } from "@/lib/embed";
import { openStore, type Store } from "@/lib/store";
import { TOOL } from "@/lib/tools/names";
import { s3Env, startS3 } from "../e2e/helpers/s3";
import { type CorpusIngest, f1, ingestCorpus, mb } from "./bench-ingest";
import { McpHttp, measureMcp, type Timing } from "./bench-load";
import { corpusFiles, sampleQueries, startServer } from "./bench-server";

export interface ReplicaOptions {
  chunks: number;
  corpus?: string;
  evalDir: string;
  port: number;
  seconds: number;
  queries: number;
}

const BUCKET = "kb-bench";
/** How long a replica may take to see the other's write before the check fails. */
const SEEN_WITHIN_MS = 30_000;

/** Polls `ok` every 100 ms: the milliseconds until it held, or null after SEEN_WITHIN_MS. */
async function msUntil(ok: () => Promise<boolean>): Promise<number | null> {
  const t0 = performance.now();
  while (performance.now() - t0 < SEEN_WITHIN_MS) {
    if (await ok().catch(() => false)) return performance.now() - t0;
    await new Promise((r) => setTimeout(r, 100));
  }
  return null;
}

async function ingestInto(uri: string, files: string[], chunks: number): Promise<CorpusIngest> {
  const store: Store = await openStore({ uri, embedder: getEmbedder() });
  try {
    const r = await ingestCorpus(store, files, chunks);
    await store.maintenanceIdle();
    return r;
  } finally {
    await store.close();
  }
}

export async function runReplicaBench(o: ReplicaOptions): Promise<boolean> {
  const tmp = await mkdtemp(path.join(os.tmpdir(), "kb-replicas-"));
  const s3Port = o.port + 10;
  const s3 = await startS3(path.join(tmp, "s3"), s3Port, BUCKET);
  Object.assign(process.env, s3Env(s3Port)); // for this process's store and, through startServer, the replicas
  const s3Uri = `s3://${BUCKET}/bench`;
  const localDir = path.join(tmp, "local");
  const servers: ChildProcess[] = [];
  try {
    const files = await corpusFiles(o.evalDir, o.corpus);
    console.log(`replica bench: ${o.chunks} chunks, ${os.cpus().length} CPUs, node ${process.version}\n`);
    for (const [label, uri] of [
      ["s3rver", s3Uri],
      ["local disk", localDir],
    ] as const) {
      const r = await ingestInto(uri, files, o.chunks);
      console.log(
        `ingest into ${label}: ${r.chunks} chunks, ${f1(mb(r.rawBytes))} MB in ${f1(r.seconds)} s (${(mb(r.rawBytes) / r.seconds).toFixed(2)} MB/s)`,
      );
    }
    const queryStore = await openStore({ uri: localDir, embedder: getEmbedder() });
    const queries = await sampleQueries(queryStore, o.queries);
    await queryStore.close();

    const ports = { a: o.port, b: o.port + 1, local: o.port + 2 };
    // One after the other: the first opens (and may create) the side tables.
    for (const [dataDir, port] of [
      [s3Uri, ports.a],
      [s3Uri, ports.b],
      [localDir, ports.local],
    ] as const) {
      const t0 = performance.now();
      servers.push(await startServer(dataDir, port));
      console.log(
        `server on ${dataDir === s3Uri ? "s3rver" : "local disk"} (port ${port}) ready in ${f1((performance.now() - t0) / 1000)} s`,
      );
    }
    const url = (port: number) => `http://127.0.0.1:${port}/api/mcp`;

    const created = await fetch(`http://127.0.0.1:${ports.a}/api/tokens`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ name: "replica bench", scope: "read-write" }),
    });
    if (created.status !== 201) throw new Error(`token: ${created.status} ${await created.text()}`);
    const { secret } = (await created.json()) as { secret: string };
    const onA = new McpHttp(url(ports.a), secret);
    const onB = new McpHttp(url(ports.b), secret);
    const found = async (on: McpHttp, id: string) => {
      const r = (await on.call(TOOL.searchKnowledge, { query: "pangolin rolls into a scaly ball", top_k: 5 })) as {
        structuredContent: { results: { document: { id: string } }[] };
      };
      return r.structuredContent.results.some((x) => x.document.id === id);
    };
    const added = (await onA.call(TOOL.addDocument, {
      title: "Replica note",
      content: "# Replica note\n\nThe pangolin rolls into a scaly ball when threatened.",
    })) as { structuredContent: { document: { id: string } } };
    const id = added.structuredContent.document.id;
    const seenAdd = await msUntil(() => found(onB, id));
    await onB.call(TOOL.deleteDocument, { document_id: id });
    const seenDelete = await msUntil(async () => !(await found(onA, id)));
    console.log(
      `\nadded through A, found through B: ${seenAdd === null ? "NOT within 30 s" : `after ${Math.round(seenAdd)} ms`}; ` +
        `deleted through B, gone from A: ${seenDelete === null ? "NOT within 30 s" : `after ${Math.round(seenDelete)} ms`}`,
    );

    const row = (t: Timing) => `p50 ${f1(t.p50)} ms  p95 ${f1(t.p95)} ms`;
    console.log(`\nsearch_knowledge through /api/mcp (${queries.length} queries, top_k 5, fresh then again)`);
    for (const [label, port] of [
      ["replica A (s3rver)", ports.a],
      ["replica B (s3rver)", ports.b],
      ["local disk        ", ports.local],
    ] as const) {
      const fresh = await measureMcp({ url: url(port), queries, sequential: true });
      const warm = await measureMcp({ url: url(port), queries, sequential: true });
      const c8 = await measureMcp({ url: url(port), queries, concurrency: 8, seconds: o.seconds });
      console.log(`  ${label}  fresh ${row(fresh)}   again ${row(warm)}   concurrency 8: ${f1(c8.rps)} req/s, ${c8.errors} errors`);
    }
    return seenAdd !== null && seenDelete !== null;
  } finally {
    for (const s of servers) if (s.exitCode === null) s.kill("SIGTERM");
    await s3.close();
    await rm(tmp, { recursive: true, force: true });
  }
}
