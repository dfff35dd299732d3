/**
 * Second-stage lexical reranker over the fused candidates. Each candidate gets a few explainable features
 * in [0, 1], summed with fixed weights:
 *   first     its first-stage score relative to the best candidate (BM25's own score offline, so its margins
 *             survive; lib/retrieve/index.ts)
 *   coverage  share of the query's content terms in the chunk, each weighted by its IDF among the candidates
 *   proximity query terms that are neighbours in the question found close together in the chunk
 *   field     coverage of the document title and heading path (BM25F-style field match)
 *   number    share of the question's numbers found in the chunk
 *   document  coverage of the document as far as its best `documentDepth` candidates show it
 * IDF comes from the candidate pool itself: a term every candidate has cannot tell them apart. Weights chosen
 * with the ablation on the four public sets (see docs/design-decisions.md): first 1.5; number
 * and document at 0, as neither helped on any set.
 */
import { CJK_CLASS } from "@/lib/text/cjk";
import { STOP_WORDS } from "@/lib/tokenize";
import { indexStem } from "@/lib/tokenize/index-text";
import { normalizeForMatch, type QueryTerm } from "./query";

export interface RerankWeights {
  first: number;
  coverage: number;
  proximity: number;
  field: number;
  number: number;
  document: number;
  /**
   * How many of a document's candidates (its best by first-stage score) its evidence is gathered from: a long
   * document whose many sections each hold a generic word of the question would otherwise collect them all.
   */
  documentDepth: number;
}

const FEATURES = ["first", "coverage", "proximity", "field", "number", "document"] as const;

export const DEFAULT_RERANK_WEIGHTS: RerankWeights = {
  first: 1.5,
  coverage: 1,
  proximity: 0.5,
  field: 0.3,
  number: 0,
  document: 0,
  documentDepth: 2,
};

/** What the reranker reads of a candidate. */
export interface RerankView {
  documentId: string;
  text: string;
  /** Heading path and document title, matched as one field. */
  fields: string;
  /** First-stage score, higher is better. */
  score: number;
}

export interface Reranked<T> {
  item: T;
  score: number;
  features: Record<(typeof FEATURES)[number], number>;
}

/** Proximity window in characters: two terms this far apart or more count as unrelated. */
const WINDOW = 60;

/** Where each term occurs in a text (character offsets of the normalized text). */
function positions(text: string, terms: readonly QueryTerm[]): (number[] | null)[] {
  const norm = normalizeForMatch(text);
  let latin: Map<string, number[]> | null = null;
  return terms.map((t) => {
    if (t.kind === "cjk") {
      const at: number[] = [];
      for (let i = norm.indexOf(t.key); i >= 0 && at.length < 32; i = norm.indexOf(t.key, i + t.key.length)) at.push(i);
      return at.length ? at : null;
    }
    if (!latin) latin = latinPositions(norm, terms);
    return latin.get(t.key) ?? null;
  });
}

/** A character of a Latin-script word run (letters, digits, marks; not Han, kana or Hangul). */
const LATIN_CHAR_RE = new RegExp(String.raw`^(?:(?![${CJK_CLASS}])[\p{L}\p{N}\p{M}])$`, "u");
const isLatinChar = (c: string | undefined) => c !== undefined && (/^[a-z0-9]$/.test(c) || (c > "\x7f" && LATIN_CHAR_RE.test(c)));

/**
 * Offsets of the words that stem to each query term. Stemming every word of every candidate was the
 * reranker's main cost: only words that share their first three letters with a query term can stem to it
 * (Porter2 keeps a word's start), so only those are found (by searching for the prefixes) and stemmed.
 */
export function latinPositions(norm: string, terms: readonly QueryTerm[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  const prefixes = new Set(terms.filter((x) => x.kind !== "cjk").map((x) => x.key.slice(0, 3)));
  for (const p of prefixes) {
    if (!p) continue;
    for (let i = norm.indexOf(p); i >= 0; i = norm.indexOf(p, i + 1)) {
      if (isLatinChar(norm[i - 1])) continue; // not a word start
      let e = i + p.length;
      while (isLatinChar(norm[e])) e++;
      const w = norm.slice(i, e);
      if (w.slice(0, 3) !== p || STOP_WORDS.has(w)) continue;
      const key = /^\p{N}+$/u.test(w) ? w : indexStem(w);
      const list = out.get(key);
      if (list) list.push(i);
      else out.set(key, [i]);
    }
  }
  for (const list of out.values()) list.sort((a, b) => a - b);
  return out;
}

function minDistance(a: number[], b: number[]): number {
  let best = Infinity;
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    best = Math.min(best, Math.abs(a[i] - b[j]));
    if (a[i] < b[j]) i++;
    else j++;
  }
  return best;
}

export function lexicalRerank<T>(
  terms: readonly QueryTerm[],
  items: readonly T[],
  view: (item: T) => RerankView,
  weights: RerankWeights = DEFAULT_RERANK_WEIGHTS,
): Reranked<T>[] {
  if (items.length === 0) return [];
  const views = items.map(view);
  const pos = views.map((v) => positions(v.text, terms));
  const fieldHas = weights.field ? views.map((v) => positions(v.fields, terms).map((p) => p !== null)) : null;

  // IDF within the pool, smoothed so a term in every candidate still counts a little.
  const n = items.length;
  const idf = terms.map((_, ti) => {
    let df = 0;
    for (const p of pos) if (p[ti]) df++;
    return Math.log(1 + n / (1 + df));
  });
  const totalIdf = idf.reduce((s, x) => s + x, 0) || 1;
  const pairWeight = terms.slice(1).map((_, i) => Math.min(idf[i], idf[i + 1]));
  const totalPair = pairWeight.reduce((s, x) => s + x, 0);
  const numberTerms = terms.flatMap((t, i) => (t.kind === "number" ? [i] : []));

  // A document's evidence: the union of the terms its best `documentDepth` candidate chunks hold.
  const docTerms = new Map<string, boolean[]>();
  const docChunks = new Map<string, number>();
  const byFirst = views.map((_, ci) => ci).sort((a, b) => views[b].score - views[a].score);
  byFirst.forEach((ci) => {
    const v = views[ci];
    const seen = docChunks.get(v.documentId) ?? 0;
    if (seen >= weights.documentDepth) return;
    docChunks.set(v.documentId, seen + 1);
    const has = docTerms.get(v.documentId) ?? terms.map(() => false);
    pos[ci].forEach((p, ti) => {
      if (p || fieldHas?.[ci][ti]) has[ti] = true;
    });
    docTerms.set(v.documentId, has);
  });
  const docCoverage = new Map([...docTerms].map(([d, has]) => [d, has.reduce((s, h, ti) => s + (h ? idf[ti] : 0), 0) / totalIdf]));

  const maxScore = Math.max(...views.map((v) => v.score)) || 1;
  const out = views.map((v, ci): Reranked<T> => {
    const p = pos[ci];
    const coverage = p.reduce((s, x, ti) => s + (x ? idf[ti] : 0), 0) / totalIdf;
    let proximity = 0;
    if (totalPair > 0) {
      for (let i = 0; i + 1 < terms.length; i++) {
        const a = p[i];
        const b = p[i + 1];
        if (a && b) proximity += pairWeight[i] * Math.max(0, 1 - minDistance(a, b) / WINDOW);
      }
      proximity /= totalPair;
    }
    const field = fieldHas ? fieldHas[ci].reduce((s, h, ti) => s + (h ? idf[ti] : 0), 0) / totalIdf : 0;
    const number = numberTerms.length ? numberTerms.filter((ti) => p[ti]).length / numberTerms.length : 0;
    const features = { first: v.score / maxScore, coverage, proximity, field, number, document: docCoverage.get(v.documentId) ?? 0 };
    const score = FEATURES.reduce((s, k) => s + weights[k] * features[k], 0);
    return { item: items[ci], score, features };
  });
  return out.sort((a, b) => b.score - a.score);
}
