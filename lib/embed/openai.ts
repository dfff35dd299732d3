import { createHash } from "node:crypto";
import { createOpenAI } from "@ai-sdk/openai";
import { APICallError, embedMany, LoadAPIKeyError, RetryError } from "ai";
import { AppError } from "@/lib/types";
import type { Embedder, EmbedOptions } from "./types";

export interface OpenAIEmbedderOptions {
  model: string;
  baseURL?: string;
  apiKey?: string;
  /** Texts per /embeddings request. Default 32. */
  batchSize: number;
  /** Requested output dimension (sent as `dimensions`); otherwise the model's own, learnt from the first response. */
  dimension?: number;
}

/** Output sizes of OpenAI's own models, so the dimension is known before the first request. */
const KNOWN_DIMENSIONS: Record<string, number> = {
  "text-embedding-3-small": 1536,
  "text-embedding-3-large": 3072,
  "text-embedding-ada-002": 1536,
};

/** Process-wide LRU of vectors, keyed by endpoint, model, dimension and sha256 of the text. */
const CACHE_LIMIT = 4096;
const cache = new Map<string, number[]>();

function cacheGet(key: string): number[] | undefined {
  const v = cache.get(key);
  if (v) {
    cache.delete(key);
    cache.set(key, v);
  }
  return v;
}

function cachePut(key: string, v: number[]): void {
  cache.set(key, v);
  while (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value!);
}

/** Embeddings from any OpenAI-compatible `/embeddings` endpoint (OpenAI, Ollama, vLLM…), batched and cached. */
export function createOpenAIEmbedder(opts: OpenAIEmbedderOptions): Embedder {
  const batchSize = Math.max(1, Math.floor(opts.batchSize || 32));
  // Local servers need no key, but the SDK insists on one.
  const apiKey = opts.apiKey ?? (opts.baseURL ? "not-needed" : undefined);
  const model = createOpenAI({ baseURL: opts.baseURL, apiKey }).embedding(opts.model);
  const endpoint = opts.baseURL ?? "https://api.openai.com/v1";
  let discovered: number | undefined;
  const keyOf = (text: string) => `${endpoint}|${opts.model}|${opts.dimension ?? ""}|${createHash("sha256").update(text).digest("hex")}`;

  async function embed(texts: string[], eo: EmbedOptions = {}): Promise<number[][]> {
    const keys = texts.map(keyOf);
    const result: (number[] | undefined)[] = keys.map(cacheGet);
    const missing = [...new Set(keys.filter((_, i) => !result[i]))];
    const textOf = new Map(keys.map((k, i) => [k, texts[i]]));
    let done = result.filter(Boolean).length;
    if (missing.length === 0) eo.onProgress?.(done, texts.length);

    for (let b = 0; b < missing.length; b += batchSize) {
      eo.signal?.throwIfAborted();
      const batch = missing.slice(b, b + batchSize);
      const vectors = await request(
        batch.map((k) => textOf.get(k)!),
        eo.signal,
      );
      const got = new Map(batch.map((k, i) => [k, vectors[i]]));
      for (const [k, v] of got) cachePut(k, v);
      keys.forEach((k, i) => {
        const v = got.get(k);
        if (v) {
          result[i] = v;
          done++;
        }
      });
      eo.onProgress?.(done, texts.length);
    }
    return result.map((v) => v!);
  }

  async function request(values: string[], signal?: AbortSignal): Promise<number[][]> {
    let embeddings: number[][];
    try {
      ({ embeddings } = await embedMany({ model, values, dimensions: opts.dimension, abortSignal: signal, maxRetries: 2 }));
    } catch (err) {
      throw toAppError(err, endpoint, signal);
    }
    if (embeddings.length !== values.length) {
      throw new AppError("upstream", `The embedding service returned ${embeddings.length} vectors for ${values.length} texts.`);
    }
    const expected = discovered ?? opts.dimension;
    for (const v of embeddings) {
      if (expected !== undefined && v.length !== expected) {
        throw new AppError(
          "embedder_mismatch",
          `The embedding service returned ${v.length}-dimensional vectors, expected ${expected}. Check EMBEDDING_MODEL / EMBEDDING_DIMENSION.`,
          502,
        );
      }
    }
    discovered ??= embeddings[0]?.length;
    return embeddings;
  }

  return {
    name: `openai:${opts.model}`,
    /** Known after the first request for unknown models; 0 until then (see ensureDimension). */
    get dimension() {
      return discovered ?? opts.dimension ?? KNOWN_DIMENSIONS[opts.model] ?? 0;
    },
    embed,
  };
}

function toAppError(err: unknown, endpoint: string, signal?: AbortSignal): unknown {
  if (signal?.aborted) return signal.reason ?? err;
  const cause = RetryError.isInstance(err) ? err.lastError : err;
  if (cause instanceof AppError) return cause;
  if (LoadAPIKeyError.isInstance(cause)) {
    return new AppError("unauthorized", "No API key for the embedding service: set EMBEDDING_API_KEY or OPENAI_API_KEY.", 502);
  }
  if (APICallError.isInstance(cause)) {
    const status = cause.statusCode;
    if (status === 401 || status === 403) {
      return new AppError(
        "unauthorized",
        `The embedding service at ${endpoint} rejected the API key (HTTP ${status}). Check EMBEDDING_API_KEY or OPENAI_API_KEY.`,
        502,
      );
    }
    if (status === 429)
      return new AppError(
        "rate_limited",
        `The embedding service at ${endpoint} is rate limiting requests (HTTP 429). Try again later.`,
        503,
      );
    return new AppError("upstream", `The embedding service at ${endpoint} failed${status ? ` (HTTP ${status})` : ""}: ${cause.message}`);
  }
  return new AppError("upstream", `Embedding failed: ${cause instanceof Error ? cause.message : String(cause)}`);
}
