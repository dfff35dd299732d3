import { getConfig } from "@/lib/config";
import { createOfflineEmbedder } from "./offline";
import { createOpenAIEmbedder } from "./openai";
import type { Embedder } from "./types";

export type { Embedder } from "./types";

/** The configured embedder: OpenAI-compatible when provider is "openai", else the offline hashing one. */
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
  return createOfflineEmbedder(cfg.dimension);
}

/**
 * The embedder's dimension, asking the service once when it is not known yet (an OpenAI-compatible
 * model that is not OpenAI's own, with no EMBEDDING_DIMENSION set).
 */
export async function ensureDimension(embedder: Embedder): Promise<number> {
  if (embedder.dimension > 0) return embedder.dimension;
  await embedder.embed(["dimension probe"]);
  return embedder.dimension;
}

export { createOfflineEmbedder, isOfflineEmbedder } from "./offline";
