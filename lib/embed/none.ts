import type { Embedder } from "./types";

export const NO_EMBEDDER = "none";

/**
 * The offline default: no vectors at all, retrieval is lexical (BM25, query analysis, lexical reranker). The
 * offline hashing embedder only knows the words BM25 knows and lost quality with any vote (lib/retrieve:
 * defaultVectorWeight), while its 512 float32 per chunk cost several times the text on disk and much of the
 * ingest CPU (see docs/design-decisions.md). A real embedding model (EMBEDDING_MODEL) gets vectors and an equal vote; EMBEDDING_PROVIDER=offline
 * keeps the hashed vectors (the `--ablate` rows that measure them).
 */
export function createNoEmbedder(): Embedder {
  return {
    name: NO_EMBEDDER,
    dimension: 0,
    async embed(texts) {
      return texts.map(() => []);
    },
  };
}

/** Whether the embedder makes vectors (an unprobed OpenAI-compatible model does, dimension 0 until then). */
export function makesVectors(embedder: Pick<Embedder, "name">): boolean {
  return embedder.name !== NO_EMBEDDER;
}
