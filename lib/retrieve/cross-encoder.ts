/**
 * Optional cross-encoder reranking for deployments that run one (TEI, Jina, Cohere-compatible, vLLM, Infinity…):
 * POST {RERANK_BASE_URL}/rerank with { model, query, documents } and read back relevance scores, either as
 * { results: [{ index, relevance_score }] } (Jina/Cohere) or as [{ index, score }] (TEI). Only the top N
 * candidates are sent; on any failure or timeout the lexical order stands and a warning is logged.
 */
import { z } from "zod";

export interface CrossEncoder {
  baseUrl: string;
  model: string;
  /** How many of the best candidates are rescored. */
  topN: number;
  timeoutMs: number;
  apiKey?: string;
}

const DEFAULT_RERANK_TOP_N = 20;
const DEFAULT_RERANK_TIMEOUT_MS = 3000;
/** Characters of each candidate sent (cross-encoders truncate to a few hundred tokens anyway). */
const MAX_DOC_CHARS = 2000;

const positiveInt = (v: string | undefined, fallback: number) => {
  const n = v === undefined || v.trim() === "" ? fallback : Number(v);
  return Number.isInteger(n) && n > 0 ? n : fallback;
};

/** The cross-encoder configured by RERANK_BASE_URL + RERANK_MODEL (RERANK_TOP_N, RERANK_TIMEOUT_MS, RERANK_API_KEY), else null. */
export function crossEncoderFromEnv(env: Record<string, string | undefined> = process.env): CrossEncoder | null {
  const baseUrl = env.RERANK_BASE_URL?.trim();
  const model = env.RERANK_MODEL?.trim();
  if (!baseUrl || !model) return null;
  return {
    baseUrl: baseUrl.replace(/\/+$/, ""),
    model,
    topN: positiveInt(env.RERANK_TOP_N, DEFAULT_RERANK_TOP_N),
    timeoutMs: positiveInt(env.RERANK_TIMEOUT_MS, DEFAULT_RERANK_TIMEOUT_MS),
    apiKey: env.RERANK_API_KEY?.trim() || undefined,
  };
}

const scored = z.object({ index: z.number().int().min(0), relevance_score: z.number().optional(), score: z.number().optional() });
const responseSchema = z.union([z.object({ results: z.array(scored) }), z.array(scored)]);

/** Relevance score per document index, as the server returned them. */
async function fetchRerankScores(ce: CrossEncoder, query: string, documents: string[]): Promise<number[]> {
  const res = await fetch(`${ce.baseUrl}/rerank`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(ce.apiKey ? { authorization: `Bearer ${ce.apiKey}` } : {}) },
    body: JSON.stringify({ model: ce.model, query, documents, top_n: documents.length, return_documents: false }),
    signal: AbortSignal.timeout(ce.timeoutMs),
  });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  const body = responseSchema.parse(await res.json());
  const list = Array.isArray(body) ? body : body.results;
  const scores = documents.map(() => Number.NEGATIVE_INFINITY);
  for (const r of list) {
    const s = r.relevance_score ?? r.score;
    if (r.index < documents.length && s !== undefined) scores[r.index] = s;
  }
  if (scores.every((s) => s === Number.NEGATIVE_INFINITY)) throw new Error("no scores in the response");
  return scores;
}

/**
 * Reorders the first `topN` items by the cross-encoder's scores (the rest keep their order behind them);
 * returns the items unchanged when the reranker fails. Scores become the cross-encoder's.
 */
export async function crossEncoderRerank<T extends { score: number }>(
  ce: CrossEncoder,
  query: string,
  items: readonly T[],
  text: (item: T) => string,
): Promise<T[]> {
  const head = items.slice(0, ce.topN);
  if (head.length < 2) return [...items];
  try {
    const scores = await fetchRerankScores(
      ce,
      query,
      head.map((i) => text(i).slice(0, MAX_DOC_CHARS)),
    );
    const order = head.map((item, i) => ({ item: { ...item, score: scores[i] }, s: scores[i], i }));
    order.sort((a, b) => b.s - a.s || a.i - b.i);
    // Candidates past the top N stay behind, with scores below the reranked ones so "higher is better" holds.
    const floor = Math.min(...order.map((o) => o.s).filter(Number.isFinite));
    return [...order.map((o) => o.item), ...items.slice(ce.topN).map((item, j) => ({ ...item, score: floor - 1 - j }))];
  } catch (err) {
    console.warn(`cross-encoder rerank failed, keeping the lexical order: ${err instanceof Error ? err.message : String(err)}`);
    return [...items];
  }
}
