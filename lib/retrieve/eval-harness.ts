import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { getConfig } from "@/lib/config";
import { type Embedder, getEmbedder } from "@/lib/embed";
import { addConcurrently, createBatchIngest, readInputFile } from "@/lib/ingest";
import { fileNameOf } from "@/lib/kb/fields";
import { openStore, type Store } from "@/lib/store";
import { INDEX_TEXT_VERSION } from "@/lib/tokenize/index-text";
import type { IngestProgress } from "@/lib/types";
import {
  type CorpusPassage,
  type EvalQuestion,
  parseJsonl,
  percentile,
  type RecallSummary,
  type RetrievedChunk,
  scoreQuestion,
  summarize,
} from "./eval-metrics";
import { openFts5Reference } from "./fts5-reference";
import { type SearchTuning, searchKnowledge } from "./index";

/** An eval set directory: corpus.jsonl, questions.jsonl, docs/*.md. */
export interface EvalSet {
  dir: string;
  questions: EvalQuestion[];
  corpus: Map<string, CorpusPassage>;
  /** File names in docs/, sorted. */
  docs: string[];
}

export async function loadEvalSet(dir: string): Promise<EvalSet> {
  const [q, c, docs] = await Promise.all([
    readFile(path.join(dir, "questions.jsonl"), "utf8"),
    readFile(path.join(dir, "corpus.jsonl"), "utf8"),
    readdir(path.join(dir, "docs")),
  ]);
  const corpus = new Map(parseJsonl<CorpusPassage>(c).map((p) => [p.id, p]));
  return { dir, questions: parseJsonl<EvalQuestion>(q), corpus, docs: docs.filter((d) => d.endsWith(".md")).sort() };
}

/**
 * A deterministic subset: the first `questions` questions, their gold documents, plus the first
 * `distractors` other documents (sorted by name).
 */
export function subsetOf(set: EvalSet, questions: number, distractors: number): { questions: EvalQuestion[]; docs: string[] } {
  const qs = set.questions.slice(0, questions);
  const gold = new Set(qs.map((q) => q.gold_doc));
  const others = set.docs.filter((d) => !gold.has(d)).slice(0, distractors);
  return { questions: qs, docs: [...gold, ...others].sort() };
}

export interface EvalReport {
  passage: RecallSummary;
  document: RecallSummary;
  documents: number;
  chunks: number;
  ingestSeconds: number;
  queryMs: { mean: number; p50: number; p95: number };
  /** Questions with no passage-level hit in the top k. */
  misses: { id: string; question: string; gold_doc: string; top: string[] }[];
  /** Per question, in order: its type ("all" when the set has none) and first-hit ranks. */
  ranks: { type: string; passage: number | null; document: number | null }[];
}

export interface EvalRunOptions {
  /** Which documents to ingest (file names in docs/); all by default. */
  docs?: string[];
  /** Which questions to ask; all by default. */
  questions?: EvalQuestion[];
  topK?: number;
  tuning?: Partial<SearchTuning>;
  embedder?: Embedder;
  onIngest?: (done: number, total: number, p?: IngestProgress) => void;
  onQuery?: (done: number, total: number) => void;
}

/**
 * A store holding the set's documents, kept in `cacheDir` between runs so query-side changes are measured
 * without re-ingesting. The cache is keyed by the embedder, the index-text version, the chunk settings
 * (CHUNK_SIZE, CHUNK_OVERLAP) and the document list;
 * a stale one is rebuilt.
 */
export async function openCachedSet(
  set: EvalSet,
  cacheDir: string,
  opts: Pick<EvalRunOptions, "docs" | "embedder" | "onIngest"> = {},
): Promise<{ store: Store; ingest: { seconds: number; chunks: number; documents: number } | null }> {
  const embedder = opts.embedder ?? getEmbedder();
  const docs = opts.docs ?? set.docs;
  const { chunkSize, chunkOverlap } = getConfig();
  const key = JSON.stringify({ embedder: embedder.name, index: INDEX_TEXT_VERSION, chunkSize, chunkOverlap, docs });
  const marker = path.join(cacheDir, "eval-cache.json");
  const current = await readFile(marker, "utf8").catch(() => null);
  if (current === key) return { store: await openStore({ uri: cacheDir, embedder }), ingest: null };
  await rm(cacheDir, { recursive: true, force: true });
  await mkdir(cacheDir, { recursive: true });
  const store = await openStore({ uri: cacheDir, embedder });
  const ingest = await ingestSet(store, set, docs, opts.onIngest);
  await writeFile(marker, key);
  return { store, ingest };
}

export async function ingestSet(
  store: Store,
  set: EvalSet,
  docs: readonly string[],
  onIngest?: EvalRunOptions["onIngest"],
): Promise<{ seconds: number; chunks: number; documents: number }> {
  const t0 = performance.now();
  let chunks = 0;
  let i = 0;
  const batch = createBatchIngest(store, { onProgress: (p) => onIngest?.(i, docs.length, p) });
  const failures = [];
  await addConcurrently(docs, async (name) => {
    const data = await readInputFile(path.join(set.dir, "docs", name));
    const { result: r, failures: f } = await batch.add({ filename: fileNameOf(name), data, kb: "eval", origin: "cli" });
    failures.push(...f);
    chunks += r.status === "unchanged" ? 0 : r.document.chunkCount;
    onIngest?.(++i, docs.length);
  });
  failures.push(...(await batch.flush()));
  if (failures.length) throw new Error(`could not store ${failures.map((f) => `${f.filename}: ${f.error}`).join("; ")}`);
  await store.optimize();
  return { seconds: (performance.now() - t0) / 1000, chunks, documents: docs.length };
}

export async function askAll(
  store: Store,
  set: EvalSet,
  opts: Pick<EvalRunOptions, "questions" | "topK" | "tuning" | "onQuery">,
): Promise<EvalScores> {
  const topK = opts.topK ?? 10;
  return scoreAll(set, opts, async (q) =>
    (await searchKnowledge(store, { query: q, topK }, opts.tuning)).map((h) => ({ source: h.document.source, text: h.chunk.text })),
  );
}

/**
 * The reference row: a SQLite FTS5 index (lib/retrieve/fts5-reference.ts) over the set's own passages, asked
 * the same questions and scored by the same metrics.
 */
export async function askFts5(set: EvalSet, opts: Pick<EvalRunOptions, "questions" | "topK" | "onQuery">): Promise<EvalScores> {
  const fts = openFts5Reference();
  try {
    fts.add([...set.corpus.values()].map((p) => ({ id: p.id, doc: p.doc, title: p.title, text: p.text })));
    const topK = opts.topK ?? 10;
    return await scoreAll(set, opts, async (q) => fts.search(q, topK).map((h) => ({ source: h.doc, text: h.text })));
  } finally {
    fts.close();
  }
}

export type EvalScores = Pick<EvalReport, "passage" | "document" | "queryMs" | "misses" | "ranks">;

async function scoreAll(
  set: EvalSet,
  opts: Pick<EvalRunOptions, "questions" | "onQuery">,
  search: (question: string) => Promise<RetrievedChunk[]>,
): Promise<EvalScores> {
  const questions = opts.questions ?? set.questions;
  const passageRanks: (number | null)[] = [];
  const documentRanks: (number | null)[] = [];
  const times: number[] = [];
  const misses: EvalReport["misses"] = [];
  const ranks: EvalReport["ranks"] = [];
  for (const [i, q] of questions.entries()) {
    const t0 = performance.now();
    const results = await search(q.question);
    times.push(performance.now() - t0);
    const { passageRank, documentRank } = scoreQuestion(q, results, set.corpus);
    passageRanks.push(passageRank);
    documentRanks.push(documentRank);
    ranks.push({ type: q.type ?? "all", passage: passageRank, document: documentRank });
    if (passageRank === null)
      misses.push({ id: q.id, question: q.question, gold_doc: q.gold_doc, top: results.slice(0, 3).map((r) => r.source) });
    opts.onQuery?.(i + 1, questions.length);
  }
  const sorted = [...times].sort((a, b) => a - b);
  return {
    passage: summarize(passageRanks),
    document: summarize(documentRanks),
    queryMs: {
      mean: times.reduce((s, t) => s + t, 0) / Math.max(1, times.length),
      p50: percentile(sorted, 50),
      p95: percentile(sorted, 95),
    },
    misses,
    ranks,
  };
}
