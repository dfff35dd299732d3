import { CJK_WORD_CLASS } from "@/lib/text/cjk";
import { tokenize } from "@/lib/tokenize";
import { makesVectors } from "./none";
import type { Embedder } from "./types";

/**
 * Default dimension: 512 keeps nearly all the recall of 2048 on the eval subsets at a quarter of the storage
 * (2 KB a chunk) and of the vector search and index-build time (see docs/design-decisions.md).
 */
const OFFLINE_DIMENSION = 512;

/**
 * Relative weight of each feature family. Words carry the meaning; adjacent word pairs reward
 * phrases ("sick leave"); character 3-grams of Latin words catch inflections and typos the
 * stemmer misses; CJK single characters are weak alone, bigrams carry most of the signal.
 */
interface FeatureWeights {
  word: number;
  wordPair: number;
  trigram: number;
  cjkChar: number;
  cjkPair: number;
}
const DEFAULT_WEIGHTS: FeatureWeights = { word: 1, wordPair: 0.5, trigram: 0.35, cjkChar: 0.4, cjkPair: 1 };

const CJK_START = new RegExp(`^[${CJK_WORD_CLASS}]`, "u");

/**
 * A deterministic, download-free embedder: feature hashing of tokenize() tokens plus character
 * 3-grams, sublinear tf, signed buckets, L2-normalised. Similar wording gives similar vectors;
 * it knows no synonyms, so it complements keyword search rather than replacing a real model.
 */
/** Whether the embedder is an offline one: none (no vectors), or the hashing one (which only knows the words BM25 knows). */
export function isOfflineEmbedder(embedder: Pick<Embedder, "name">): boolean {
  return embedder.name.startsWith("offline-") || !makesVectors(embedder);
}

export function createOfflineEmbedder(dimension = OFFLINE_DIMENSION): Embedder {
  if (!Number.isInteger(dimension) || dimension < 8) throw new RangeError(`dimension must be an integer >= 8, got ${dimension}`);
  return {
    name: `offline-hash-v1-${dimension}`,
    dimension,
    async embed(texts, opts) {
      const out: number[][] = [];
      for (const text of texts) {
        opts?.signal?.throwIfAborted();
        out.push(embedText(text, dimension));
        opts?.onProgress?.(out.length, texts.length);
      }
      return out;
    },
  };
}

/** Feature → weight for one text, before hashing. */
function featureWeights(text: string, weights: FeatureWeights = DEFAULT_WEIGHTS): Map<string, number> {
  const seen = new Map<string, { weight: number; n: number }>();
  const add = (key: string, weight: number) => {
    const entry = seen.get(key);
    if (entry) entry.n++;
    else seen.set(key, { weight, n: 1 });
  };
  let prev = "";
  for (const token of tokenize(text)) {
    if (CJK_START.test(token)) {
      add(token, Array.from(token).length === 1 ? weights.cjkChar : weights.cjkPair);
      prev = "";
      continue;
    }
    add(`w:${token}`, weights.word);
    if (prev) add(`b:${prev} ${token}`, weights.wordPair);
    prev = token;
    if (/^\p{N}+$/u.test(token)) continue;
    const bounded = `<${token}>`;
    for (let i = 0; i + 3 <= bounded.length; i++) add(`g:${bounded.slice(i, i + 3)}`, weights.trigram);
  }
  // Sublinear tf: a feature seen n times counts weight * (1 + ln n).
  const out = new Map<string, number>();
  for (const [key, { weight, n }] of seen) if (weight > 0) out.set(key, weight * (1 + Math.log(n)));
  return out;
}

/** The L2-normalised hashed vector of one text (all zeros for a text without tokens). */
function embedText(text: string, dimension = OFFLINE_DIMENSION, weights: FeatureWeights = DEFAULT_WEIGHTS): number[] {
  const features = featureWeights(text, weights);
  const v = new Float64Array(dimension);
  for (const [key, weight] of features.size ? features : fallbackFeatures(text)) {
    const h = hash32(key);
    v[h % dimension] += h & 0x80000000 ? -weight : weight;
  }
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm);
  return Array.from(v, (x) => (norm > 0 ? x / norm : 0));
}

/** For texts with no word tokens ("---", "？？"): their characters, so the vector is never all zeros. */
function fallbackFeatures(text: string): Map<string, number> {
  const out = new Map<string, number>([["empty:", 1]]);
  for (const ch of text) if (!/\s/.test(ch)) out.set(`c:${ch}`, 1);
  if (out.size > 1) out.delete("empty:");
  return out;
}

/** FNV-1a over UTF-16 code units, then murmur3's finaliser so every bit is well mixed. */
function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
