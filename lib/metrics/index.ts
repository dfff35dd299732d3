/**
 * Prometheus metrics (prom-client) for GET /metrics. One registry per process, kept on globalThis so every
 * Next bundle of the process records into the same one. Other code records through the small functions
 * below; it never touches prom-client itself.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { processGlobal } from "@/lib/process-global";

/** Seconds; from 1 ms (a cached tools/list) to 30 s (a chat turn, a large upload). */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * How often the event-loop delay metrics sample the loop, in ms. prom-client's default of 10 ms is a timer that woke
 * every idle server 100 times a second (about 0.5 CPU-s a minute each, measured on the 2-core machine); a stall
 * still shows in the lag percentiles, which are made of every sample's delay.
 */
const EVENT_LOOP_SAMPLE_MS = 100;

function create() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "kb_", eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  const registers = [registry];
  const counter = <L extends string = never>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Counter({ name, help, labelNames, registers });
  const gauge = <L extends string = never>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Gauge({ name, help, labelNames, registers });
  const histogram = <L extends string>(name: string, help: string, labelNames: readonly L[], buckets = LATENCY_BUCKETS) =>
    new Histogram({ name, help, labelNames, buckets, registers });
  return {
    registry,
    requestDuration: histogram("kb_http_request_duration_seconds", "HTTP request latency by route, method and status", [
      "route",
      "method",
      "status",
    ]),
    toolDuration: histogram("kb_mcp_tool_duration_seconds", "MCP tool call latency by tool and outcome", ["tool", "outcome"]),
    toolCalls: counter("kb_mcp_tool_calls_total", "MCP tool calls by tool and outcome", ["tool", "outcome"]),
    errors: counter("kb_errors_total", "Errors answered, by error code", ["code"]),
    ingestDocuments: counter("kb_ingest_documents_total", "Documents ingested, by status", ["status"]),
    ingestChunks: counter("kb_ingest_chunks_total", "Chunks written by ingestion"),
    ingestBytes: counter("kb_ingest_bytes_total", "Bytes of files ingested (added or updated)"),
    ingestQueue: gauge("kb_ingest_queue_depth", "Documents waiting for or in ingestion"),
    embeddingCache: counter("kb_embedding_cache_total", "Chunk embeddings reused from the store (hit) or computed (miss)", ["result"]),
    storeRows: gauge("kb_store_rows", "Rows per store table", ["table"]),
    storeVersions: gauge("kb_store_versions", "Versions kept per store table", ["table"]),
    dataDirBytes: gauge("kb_data_dir_bytes", "Bytes on disk under the data directory (local stores only)"),
    auditEvents: counter("kb_audit_events_total", "Audit log events by action and outcome", ["action", "outcome"]),
    sourceItems: counter("kb_source_sync_items_total", "Items of a knowledge source by sync outcome", ["source", "outcome"]),
    sourceRuns: counter("kb_source_sync_runs_total", "Sync runs of a knowledge source by outcome", ["source", "outcome"]),
    sourceLastSync: gauge("kb_source_last_sync_timestamp_seconds", "When a knowledge source last finished a sync", ["source"]),
    maintenanceRuns: counter("kb_maintenance_runs_total", "Background store maintenance runs by outcome", ["outcome"]),
    maintenanceDuration: histogram(
      "kb_maintenance_duration_seconds",
      "Background store maintenance duration by outcome",
      ["outcome"],
      [0.01, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
    ),
  };
}

type Metrics = ReturnType<typeof create>;

function getMetrics(): Metrics {
  return processGlobal("metrics", create);
}

/** Records one HTTP request: `route` is the route pattern ("/api/mcp", "/api/documents/[id]"), never a raw URL. */
export function observeRequest(route: string, status: number, ms: number, method = "POST"): void {
  getMetrics().requestDuration.observe({ route, method, status: String(status) }, ms / 1000);
}

export type ToolOutcome = "ok" | "tool_error" | "error";

export function observeTool(tool: string, outcome: ToolOutcome, ms: number): void {
  const m = getMetrics();
  m.toolCalls.inc({ tool, outcome });
  m.toolDuration.observe({ tool, outcome }, ms / 1000);
}

export function countError(code: string): void {
  getMetrics().errors.inc({ code });
}

export function recordIngest(status: "added" | "updated" | "unchanged" | "failed", chunks = 0, bytes = 0): void {
  const m = getMetrics();
  m.ingestDocuments.inc({ status });
  if (chunks) m.ingestChunks.inc(chunks);
  if (bytes) m.ingestBytes.inc(bytes);
}

/** +n when documents enter ingestion, -n when they leave it (done or failed). */
export function ingestQueue(delta: number): void {
  getMetrics().ingestQueue.inc(delta);
}

export function countEmbeddingCache(hits: number, misses: number): void {
  const m = getMetrics();
  if (hits) m.embeddingCache.inc({ result: "hit" }, hits);
  if (misses) m.embeddingCache.inc({ result: "miss" }, misses);
}

/** One finished sync run of a source (lib/sources/engine.ts). */
export function recordSourceSync(
  source: string,
  counts: { added: number; updated: number; unchanged: number; removed: number; skipped: number; failed: number },
  ok: boolean,
): void {
  const m = getMetrics();
  for (const outcome of ["added", "updated", "unchanged", "removed", "skipped"] as const)
    m.sourceItems.inc({ source, outcome }, counts[outcome]);
  m.sourceItems.inc({ source, outcome: "failed" }, counts.failed);
  m.sourceRuns.inc({ source, outcome: ok ? "ok" : "failed" });
  m.sourceLastSync.set({ source }, Date.now() / 1000);
}

export function countAuditEvent(action: string, outcome: string): void {
  getMetrics().auditEvents.inc({ action, outcome });
}

export function recordMaintenance(outcome: "ok" | "failed" | "timeout", ms: number): void {
  const m = getMetrics();
  m.maintenanceRuns.inc({ outcome });
  m.maintenanceDuration.observe({ outcome }, ms / 1000);
}

export interface StoreStatsSnapshot {
  rows: Record<string, number>;
  versions: Record<string, number>;
  /** null for an object store. */
  dataDirBytes: number | null;
}

export function setStoreStats(s: StoreStatsSnapshot): void {
  const m = getMetrics();
  for (const [table, n] of Object.entries(s.rows)) m.storeRows.set({ table }, n);
  for (const [table, n] of Object.entries(s.versions)) m.storeVersions.set({ table }, n);
  if (s.dataDirBytes !== null) m.dataDirBytes.set(s.dataDirBytes);
}

/** The exposition text and its content type. */
export async function renderMetrics(): Promise<{ body: string; contentType: string }> {
  const { registry } = getMetrics();
  return { body: await registry.metrics(), contentType: registry.contentType };
}
