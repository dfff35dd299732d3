import { getStore } from "@/lib/store";
import { waitForStartup } from "./startup";

/** How long one health request waits for start-up indexing before answering 503. */
const HEALTH_WAIT_MS = 3_000;

export type Health =
  | {
      ok: true;
      documents: number;
      embedder: unknown;
      knowledge: { added: number; updated: number; unchanged: number; removed: number; failed: { file: string; error: string }[] } | null;
    }
  | { ok: false; status: "pending" | "failed"; error: string };

/** Readiness for /api/health: 200 only once the knowledge folder is indexed and the store answers. */
export async function checkHealth(): Promise<{ status: number; body: Health }> {
  const state = await waitForStartup(HEALTH_WAIT_MS);
  if (state.status === "pending") {
    return { status: 503, body: { ok: false, status: "pending", error: "Indexing the knowledge folder; not ready yet." } };
  }
  if (state.status === "failed") {
    return { status: 503, body: { ok: false, status: "failed", error: `Start-up indexing failed: ${state.error}` } };
  }
  try {
    const store = await getStore();
    const documents = (await store.listDocuments()).length;
    return { status: 200, body: { ok: true, documents, embedder: describeEmbedder(store.embedder), knowledge: state.summary } };
  } catch (err) {
    return {
      status: 503,
      body: { ok: false, status: "failed", error: `Store unavailable: ${err instanceof Error ? err.message : String(err)}` },
    };
  }
}

/** What anyone may learn: ready or not, nothing about the documents or the files that failed. */
export function publicHealth(body: Health): { ok: boolean; status: "ready" | "pending" | "failed" } {
  return body.ok ? { ok: true, status: "ready" } : { ok: false, status: body.status };
}

/** The embedder's identifying fields (never credentials). */
function describeEmbedder(embedder: unknown): unknown {
  if (!embedder || typeof embedder !== "object") return null;
  const e = embedder as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of ["id", "name", "provider", "model", "dimension", "dimensions"]) {
    if (typeof e[key] === "string" || typeof e[key] === "number") out[key] = e[key];
  }
  return out;
}
