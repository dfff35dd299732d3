import { isOfflineEmbedder, makesVectors } from "@/lib/embed";
import type { Store } from "@/lib/store";
import type { TextHit } from "@/lib/store/types";
import { toIndexText } from "@/lib/tokenize/index-text";
import { searchReaches } from "@/lib/tools/scope";
import { AppError, type ChunkRecord, type SearchHit } from "@/lib/types";
import { type CrossEncoder, crossEncoderFromEnv, crossEncoderRerank } from "./cross-encoder";
import { collapseNearDuplicates } from "./dedupe";
import { RRF_K, reciprocalRankFusion } from "./fusion";
import { analyzeQuery } from "./query";
import { DEFAULT_RERANK_WEIGHTS, lexicalRerank, type RerankWeights } from "./rerank";

export const DEFAULT_TOP_K = 5;
export const MAX_TOP_K = 20;

/** Tunables of hybrid search; defaults are what the eval sets were measured with. */
export interface SearchTuning {
  /** Candidates taken from each of vector search and full-text search. */
  candidates: number;
  vectorWeight: number;
  textWeight: number;
  /** Which retrievers run ("vector" / "text" alone exist for the bench's comparisons). */
  mode: "hybrid" | "vector" | "text";
  /** Drop question and function words from the full-text query (lib/retrieve/query.ts). */
  queryAnalysis: boolean;
  /** Second-stage lexical reranker over the fused top `rerankDepth`; null = fused order. */
  rerank: RerankWeights | null;
  /**
   * What the reranker's first-stage feature reads: "score" = each channel's own score scaled to its best
   * (BM25 for full-text, the reciprocal-rank vote for vectors), weighted by the channels' votes, so BM25's
   * margins survive; "rank" = the fused reciprocal-rank score (rank 1 = 1.00, rank 5 = 0.94).
   */
  firstStage: "score" | "rank";
  rerankDepth: number;
  /** Optional cross-encoder (RERANK_BASE_URL); null = none. */
  crossEncoder: CrossEncoder | null;
}

const DEFAULT_TUNING: Omit<SearchTuning, "vectorWeight" | "crossEncoder"> = {
  candidates: 50,
  textWeight: 1,
  mode: "hybrid",
  queryAnalysis: true,
  rerank: DEFAULT_RERANK_WEIGHTS,
  firstStage: "score",
  rerankDepth: 50,
};

/**
 * The vote vector search gets in the fusion. A real embedding model (EMBEDDING_PROVIDER=openai) gets an equal
 * vote. The offline embedder hashes the same tokens BM25 sees, but without IDF, so it adds nothing BM25 does
 * not already know, and an equal vote costs recall (see docs/design-decisions.md). Offline a
 * query is therefore BM25 alone (about half the time), plus the freshness net (offlineRetrieve).
 */
function defaultVectorWeight(embedder: { name: string }): number {
  return isOfflineEmbedder(embedder) ? 0 : 1;
}
/** The vote of the freshness net, and of the offline vectors in the `--ablate` row that puts them back. */
const NET_WEIGHT = 0.1;

type Retrieved = { byVector: ChunkRecord[]; byText: TextHit[]; vectorWeight: number };

/**
 * Offline default: full-text search, plus the freshness net when the full-text index did not cover every chunk
 * of the version searched: the chunks this process wrote since the last maintenance (lib/store/recent.ts),
 * ranked by the share of query terms they hold. When the net holds every chunk the index lacks, the full-text
 * search leaves those out (Lance would scan them for every query) and the net gets a full vote in their place.
 */
async function offlineRetrieve(
  store: Store,
  textQuery: string,
  o: { limit: number; kbs?: string[]; documents?: readonly string[] },
): Promise<Retrieved> {
  const at = await store.textIndexState();
  const byText = await store.textSearch(textQuery, { ...o, withRecent: true, at });
  if (at.complete) return { byVector: [], byText, vectorWeight: 0 };
  const terms = [...new Set(textQuery.split(" ").filter(Boolean))];
  const net = at.recent
    .filter((r) => searchReaches(r.chunk, o))
    .map((r) => ({ chunk: r.chunk, hits: terms.filter((t) => r.terms.has(t)).length }))
    .filter((r) => r.hits > 0)
    .sort((a, b) => b.hits - a.hits)
    .slice(0, o.limit)
    .map((r) => r.chunk);
  // The full-text search left the unindexed chunks to the net: it stands in for Lance's scan of them.
  return { byVector: net, byText, vectorWeight: at.inRecent ? 1 : NET_WEIGHT };
}

/** One row of `npm run eval -- --ablate` each: a component switched off (or plain BM25 as the reference). */
export const ABLATIONS: Record<string, Partial<SearchTuning>> = {
  "plain BM25": { mode: "text", queryAnalysis: false, rerank: null },
  "previous default": { queryAnalysis: false, rerank: null, vectorWeight: 0.1 },
  "no query analysis": { queryAnalysis: false },
  "no reranker": { rerank: null },
  "first stage by rank": { firstStage: "rank" },
  "no rerank: coverage": { rerank: { ...DEFAULT_RERANK_WEIGHTS, coverage: 0 } },
  "no rerank: proximity": { rerank: { ...DEFAULT_RERANK_WEIGHTS, proximity: 0 } },
  "no rerank: fields": { rerank: { ...DEFAULT_RERANK_WEIGHTS, field: 0 } },
  "with number matches": { rerank: { ...DEFAULT_RERANK_WEIGHTS, number: 0.3 } },
  "with doc evidence": { rerank: { ...DEFAULT_RERANK_WEIGHTS, document: 0.5 } },
  "doc evidence, all chunks": { rerank: { ...DEFAULT_RERANK_WEIGHTS, document: 0.5, documentDepth: Number.POSITIVE_INFINITY } },
  "vector channel, weight 0.1": { vectorWeight: NET_WEIGHT },
  "vector channel, weight 1": { vectorWeight: 1 },
};

export interface SearchOptions {
  query: string;
  topK?: number;
  kb?: string | string[];
  /** Only passages of these documents (the sources a person picked); an empty list finds nothing. */
  documents?: readonly string[];
}

/**
 * Hybrid retrieval: BM25 full-text search (and vector search where it has a vote) over the same chunks, fused
 * with reciprocal rank fusion, restricted to the given knowledge bases; the fused top candidates reranked by
 * lexical evidence (and a cross-encoder when one is configured), near-duplicates collapsed.
 */
export async function searchKnowledge(store: Store, opts: SearchOptions, tuning: Partial<SearchTuning> = {}): Promise<SearchHit[]> {
  const t: SearchTuning = {
    ...DEFAULT_TUNING,
    vectorWeight: defaultVectorWeight(store.embedder),
    crossEncoder: crossEncoderFromEnv(),
    ...tuning,
  };
  const query = typeof opts.query === "string" ? opts.query.trim() : "";
  if (!query) throw new AppError("bad_request", "The search query is empty.");
  const topK = clampTopK(opts.topK);
  const kbs = normalizeKbs(opts.kb);
  const documents = opts.documents;
  const analyzed = analyzeQuery(query, { stopWords: t.queryAnalysis });
  const textQuery = t.queryAnalysis ? analyzed.indexText : toIndexText(query);

  const limit = Math.max(t.candidates, topK * 3);
  const useVector = t.mode === "vector" || (t.mode === "hybrid" && t.vectorWeight > 0);
  if (useVector && !makesVectors(store.embedder))
    throw new AppError("bad_request", "This store keeps no vectors (EMBEDDING_PROVIDER=none): vector search is not available.");
  const { byVector, byText, vectorWeight }: Retrieved =
    t.mode === "hybrid" && tuning.vectorWeight === undefined && isOfflineEmbedder(store.embedder)
      ? await offlineRetrieve(store, textQuery, { limit, kbs, documents })
      : await Promise.all([
          useVector ? store.embedder.embed([query]).then(([v]) => store.vectorSearch(v, { limit, kbs, documents })) : [],
          t.mode === "vector" ? [] : store.textSearch(textQuery, { limit, kbs, documents }),
        ]).then(([byVector, byText]) => ({ byVector, byText, vectorWeight: t.vectorWeight }));
  const fused = reciprocalRankFusion<ChunkRecord>(
    [
      { items: byVector, weight: vectorWeight },
      { items: byText.map(withoutScore), weight: t.textWeight },
    ],
    (c) => c.id,
  );
  const firstStage = t.firstStage === "score" ? channelScores(byText, vectorWeight, t.textWeight) : null;

  const docs = await store.getDocuments(fused.map((f) => f.item.documentId));
  // Chunks whose document row is gone (mid-delete, or a crashed write) are not results.
  let ranked: { item: ChunkRecord; score: number; ranks?: (number | null)[] }[] = fused.filter((f) => docs.has(f.item.documentId));
  if (t.rerank) {
    const depth = Math.max(t.rerankDepth, topK);
    const pool = lexicalRerank(
      analyzed.terms,
      ranked.slice(0, depth),
      ({ item, score, ranks }) => ({
        documentId: item.documentId,
        text: item.text,
        fields: `${item.heading}\n${docs.get(item.documentId)!.title}`,
        score: firstStage ? firstStage(item.id, ranks) : score,
      }),
      t.rerank,
    );
    ranked = [...pool.map((r) => ({ item: r.item.item, score: r.score })), ...ranked.slice(depth)];
  }
  if (t.crossEncoder) ranked = await crossEncoderRerank(t.crossEncoder, query, ranked, (r) => r.item.text);
  const unique = collapseNearDuplicates(
    ranked,
    (f) => ({ documentId: f.item.documentId, start: f.item.start, end: f.item.end, text: f.item.text }),
    topK,
  );
  return unique.map(({ item, score }) => {
    const d = docs.get(item.documentId)!;
    return { chunk: item, document: { id: d.id, title: d.title, source: d.source, kb: d.kb }, score };
  });
}

/** A text hit as a plain chunk record (the score is read from the hit list, not carried to the results). */
function withoutScore({ textScore: _, ...chunk }: TextHit): ChunkRecord {
  return chunk;
}

/**
 * Score-based first-stage evidence: BM25 scaled to the best full-text hit, and for the vector channel (when it
 * has a vote) its reciprocal-rank vote scaled to rank 1, mixed by the channels' weights. Ranks are the fused
 * ones: [vector rank, text rank].
 */
function channelScores(byText: readonly TextHit[], vectorWeight: number, textWeight: number) {
  const bm25 = new Map(byText.map((h) => [h.id, h.textScore ?? 0]));
  const best = Math.max(0, ...bm25.values()) || 1;
  const total = vectorWeight + textWeight || 1;
  return (id: string, ranks: (number | null)[] | undefined): number => {
    const vectorRank = ranks?.[0];
    const vector = vectorRank ? (RRF_K + 1) / (RRF_K + vectorRank) : 0;
    return (textWeight * ((bm25.get(id) ?? 0) / best) + vectorWeight * vector) / total;
  };
}

function clampTopK(topK: number | undefined): number {
  if (topK === undefined || !Number.isFinite(topK)) return DEFAULT_TOP_K;
  return Math.min(MAX_TOP_K, Math.max(1, Math.floor(topK)));
}

function normalizeKbs(kb: string | string[] | undefined): string[] | undefined {
  if (kb === undefined) return undefined;
  const list = (Array.isArray(kb) ? kb : [kb])
    .filter((k): k is string => typeof k === "string")
    .map((k) => k.trim())
    .filter(Boolean);
  return list.length ? [...new Set(list)] : undefined; // "" or [] means every knowledge base
}
