import path from "node:path";

/** Every setting the app reads, in one place. See .env.example for what each one means. */
function intEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number.parseInt(raw, 10);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return n;
}

export function getConfig() {
  const dataDir = process.env.DATA_DIR || "./.data";
  return {
    /** Local folder or object-store URI (s3://bucket/prefix) holding the LanceDB dataset. */
    dataDir: /^[a-z][a-z0-9+.-]*:\/\//i.test(dataDir) ? dataDir : path.resolve(dataDir),
    knowledgeDir: path.resolve(process.env.KNOWLEDGE_DIR || "./knowledge"),
    defaultKb: process.env.DEFAULT_KB || "default",
    chunkSize: intEnv("CHUNK_SIZE", 500),
    chunkOverlap: intEnv("CHUNK_OVERLAP", 60),
    embedding: {
      /** "offline" (default, hashed n-grams) or "openai" (any OpenAI-compatible /embeddings endpoint). */
      provider: process.env.EMBEDDING_PROVIDER || (process.env.EMBEDDING_MODEL ? "openai" : "offline"),
      model: process.env.EMBEDDING_MODEL || "text-embedding-3-small",
      baseURL: process.env.EMBEDDING_BASE_URL || process.env.OPENAI_BASE_URL || undefined,
      apiKey: process.env.EMBEDDING_API_KEY || process.env.OPENAI_API_KEY || undefined,
      batchSize: intEnv("EMBEDDING_BATCH_SIZE", 32),
      dimension: intEnv("EMBEDDING_DIMENSION", 512),
    },
    chat: {
      apiKey: process.env.OPENAI_API_KEY || undefined,
      baseURL: process.env.OPENAI_BASE_URL || undefined,
      model: process.env.CHAT_MODEL || "gpt-4o-mini",
      maxSteps: intEnv("CHAT_MAX_STEPS", 4),
    },
    maxUploadBytes: intEnv("MAX_UPLOAD_MB", 50) * 1024 * 1024,
    maxUploadFiles: intEnv("MAX_UPLOAD_FILES", 20),
  };
}

export type AppConfig = ReturnType<typeof getConfig>;
