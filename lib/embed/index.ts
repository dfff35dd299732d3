import { getConfig } from "@/lib/config";
import { createNoEmbedder, makesVectors, NO_EMBEDDER } from "./none";
import { createOfflineEmbedder } from "./offline";
import { createOpenAIEmbedder } from "./openai";
import type { Embedder } from "./types";

export type { Embedder } from "./types";

/** The configured embedder: OpenAI-compatible ("openai"), the offline hashing one ("offline"), else none (no vectors). */
export function getEmbedder(cfg = getConfig().embedding): Embedder {
  if (cfg.provider === "openai") {
    return createOpenAIEmbedder({
      model: cfg.model,
      baseURL: cfg.baseURL,
      apiKey: cfg.apiKey,
      batchSize: cfg.batchSize,
      dimension: cfg.requestDimension ? cfg.dimension : undefined,
    });
  }
  if (cfg.provider === "offline") return createOfflineEmbedder(cfg.dimension);
  if (cfg.provider === NO_EMBEDDER) return createNoEmbedder();
  throw new Error(`EMBEDDING_PROVIDER must be none, offline or openai, got "${cfg.provider}"`);
}

/**
 * The embedder's dimension, asking the service once when it is not known yet (an OpenAI-compatible
 * model that is not OpenAI's own, with no EMBEDDING_DIMENSION set).
 */
export async function ensureDimension(embedder: Embedder): Promise<number> {
  if (embedder.dimension > 0 || !makesVectors(embedder)) return embedder.dimension;
  await embedder.embed(["dimension probe"]);
  return embedder.dimension;
}

export { createNoEmbedder, makesVectors } from "./none";
export { createOfflineEmbedder, isOfflineEmbedder } from "./offline";
