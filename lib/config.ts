import { availableParallelism } from "node:os";
import path from "node:path";
import { DEFAULT_CHUNK_SIZE } from "@/lib/chunk";

/** The offline embedder's vector size unless EMBEDDING_DIMENSION says otherwise (= OFFLINE_DIMENSION, lib/embed/offline.ts). */
const OFFLINE_DEFAULT_DIMENSION = 512;

/** Every setting the app reads, in one place. See .env.example for what each one means. */
export function intEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number.parseInt(raw, 10);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return n;
}

/**
 * The address people and AI hosts reach the app at: PUBLIC_URL (a reverse proxy or tunnel in front of the
 * app), else where server.mjs listens. Never derived from a request's Host or forwarded headers.
 */
export function publicBaseUrl(): string {
  const raw = process.env.PUBLIC_URL?.trim();
  if (raw) {
    const url = URL.parse(raw);
    if (!url || (url.protocol !== "https:" && url.protocol !== "http:")) throw new Error(`PUBLIC_URL must be an http(s) URL, got "${raw}"`);
    return url.href.replace(/\/+$/, "");
  }
  return process.env.KB_INTERNAL_ORIGIN || "http://127.0.0.1:3000";
}

/** The app's own directory (server.mjs sets KB_APP_DIR): where its build outputs (dist/workers, dist/views) live. */
export function appDir(): string {
  return process.env.KB_APP_DIR || process.cwd();
}

function listEnv(name: string): string[] {
  return (process.env[name] || "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * Sections of getConfig that hot paths read on their own (per document ingested, per request): reading the
 * whole configuration is some 60 environment lookups, 3 % of a bulk ingest's main thread on small pages.
 */
export function defaultKbName(): string {
  return process.env.DEFAULT_KB || "default";
}

/** Chunk size and overlap, in characters. */
export function chunkingConfig() {
  return { chunkSize: intEnv("CHUNK_SIZE", DEFAULT_CHUNK_SIZE), chunkOverlap: intEnv("CHUNK_OVERLAP", 60) };
}

/** Hard budgets for parsing one file in a worker thread (it is terminated when one runs out). */
export function parseConfig() {
  return {
    timeoutMs: intEnv("PARSE_TIMEOUT_SECONDS", 60) * 1000,
    memoryMb: intEnv("PARSE_MEMORY_MB", 512),
    /** Worker threads for parsing; default: cores - 1 (at least 1, at most 4). */
    workers: process.env.PARSE_WORKERS ? intEnv("PARSE_WORKERS", 1) : undefined,
  };
}

/**
 * Budgets of OCR (scanned PDF pages, images), which runs in workers of its own (lib/parse/pool.ts): a page that
 * takes longer than its budget, or a file longer than its own, stops the file; the heap cap is per OCR worker.
 */
export function ocrConfig() {
  const threads = intEnv("OCR_THREADS", 1);
  return {
    pageTimeoutMs: intEnv("OCR_PAGE_TIMEOUT_SECONDS", 60) * 1000,
    fileTimeoutMs: intEnv("OCR_FILE_TIMEOUT_SECONDS", 600) * 1000,
    memoryMb: intEnv("OCR_MEMORY_MB", 1536),
    maxPages: intEnv("OCR_MAX_PAGES", 200),
    /** Threads onnxruntime uses for one page: one by default, pages running in parallel instead (less CPU time a page). */
    threads,
    /** OCR workers, each reading one page at a time (each holds the models, ~100 MB); default: the cores, OCR_THREADS each. */
    workers: intEnv("OCR_WORKERS", Math.max(1, Math.floor(availableParallelism() / threads))),
  };
}

/** Limits of every source's sync (lib/sources). */
export function sourceLimits() {
  return {
    /** The largest page, file, blob or object a source reads, checked before reading it. */
    maxBytes: intEnv("SOURCE_MAX_BYTES", 50 * 1024 * 1024),
    /** One sync's time budget: past it the run stops (nothing removed), so the syncs queued behind it run. */
    syncTimeoutMs: intEnv("SOURCE_SYNC_TIMEOUT_S", 3600) * 1000,
    /** Items one source may hold (pages, files, objects; skipped ones not counted): past it the sync stops, nothing removed. */
    maxItems: intEnv("SOURCE_MAX_ITEMS", 100_000),
    /**
     * Items a source's first sync indexes before it stops and asks an editor to confirm the rest (0: never asks),
     * so a credential that reads far more than meant does not fill the knowledge base unasked.
     */
    confirmOver: intEnv("SOURCE_CONFIRM_OVER", 5000),
    /** Pages of one S3 listing, or folders of one WebDAV walk, at most: a listing longer than this is taken for one that never ends. */
    maxListPages: intEnv("SOURCE_MAX_LIST_PAGES", 10_000),
  };
}

export function getConfig() {
  const dataDir = process.env.DATA_DIR || "./.data";
  // turbopackIgnore: folders chosen at run time, not files of the build (it would trace the whole project).
  return {
    /** Local folder or object-store URI (s3://bucket/prefix) holding the LanceDB dataset. */
    dataDir: /^[a-z][a-z0-9+.-]*:\/\//i.test(dataDir) ? dataDir : path.resolve(/*turbopackIgnore: true*/ dataDir),
    knowledgeDir: path.resolve(/*turbopackIgnore: true*/ process.env.KNOWLEDGE_DIR || "./knowledge"),
    defaultKb: defaultKbName(),
    ...chunkingConfig(),
    embedding: {
      /** "none" (default offline: no vectors, lexical retrieval), "offline" (hashed n-gram vectors) or "openai" (any OpenAI-compatible /embeddings endpoint). */
      provider: process.env.EMBEDDING_PROVIDER || (process.env.EMBEDDING_MODEL ? "openai" : "none"),
      /** Whether EMBEDDING_PROVIDER or EMBEDDING_MODEL chose the provider (else a store built with offline vectors keeps them). */
      chosen: Boolean(process.env.EMBEDDING_PROVIDER || process.env.EMBEDDING_MODEL),
      model: process.env.EMBEDDING_MODEL || "text-embedding-3-small",
      baseURL: process.env.EMBEDDING_BASE_URL || process.env.OPENAI_BASE_URL || undefined,
      apiKey: process.env.EMBEDDING_API_KEY || process.env.OPENAI_API_KEY || undefined,
      batchSize: intEnv("EMBEDDING_BATCH_SIZE", 32),
      /** Offline: vector size. OpenAI: requested output size, sent only when EMBEDDING_DIMENSION is set. */
      dimension: intEnv("EMBEDDING_DIMENSION", OFFLINE_DEFAULT_DIMENSION),
      requestDimension: Boolean(process.env.EMBEDDING_DIMENSION),
    },
    chat: {
      apiKey: process.env.OPENAI_API_KEY || undefined,
      baseURL: process.env.OPENAI_BASE_URL || undefined,
      model: process.env.CHAT_MODEL || "gpt-4o-mini",
      /** Models the user may pick per conversation (CHAT_MODEL first); empty: the endpoint's /v1/models list. */
      models: listEnv("CHAT_MODELS"),
      maxSteps: intEnv("CHAT_MAX_STEPS", 4),
      /** Conversation memory: at most this many turns (the current one included)… */
      historyTurns: intEnv("CHAT_HISTORY_TURNS", 8),
      /** …within this many characters of earlier questions and answers. */
      historyChars: intEnv("CHAT_HISTORY_CHARS", 12000),
      /** MCP endpoint the chat's tools come from; default: /api/mcp of the incoming request's origin. */
      mcpUrl: process.env.MCP_URL || undefined,
    },
    /** Access to the MCP endpoint and the management API; see lib/auth/config.ts and lib/auth/peer.ts. */
    auth: {
      /** REQUIRE_TOKEN=1: even requests from this machine need tokens. Requests from elsewhere always do. */
      requireToken: process.env.REQUIRE_TOKEN || undefined,
      /** MCP requests per minute per token (or per client address without a token); also the burst size. Local runs are not limited. */
      rateLimitPerMinute: intEnv("MCP_RATE_LIMIT", 120),
      /** Failed authentications (wrong admin secret or access token) per minute per client address. */
      authFailuresPerMinute: intEnv("AUTH_FAILURE_LIMIT", 10),
      /** Extra browser origins allowed to call the MCP endpoint (comma-separated, or "*"). */
      allowedOrigins: listEnv("ALLOWED_ORIGINS").map((s) => s.replace(/\/+$/, "")),
      /** Bearer secret for remote administration; without it, a secret generated at first start (printed once). */
      adminToken: process.env.ADMIN_TOKEN || undefined,
      /** Reverse proxies whose forwarding header (TRUSTED_PROXY_HEADER) is believed (addresses or CIDR ranges). */
      trustedProxies: process.env.TRUSTED_PROXIES || undefined,
      /** The one header those proxies set with the client's address: X-Forwarded-For (default), X-Real-IP or Forwarded. */
      trustedProxyHeader: process.env.TRUSTED_PROXY_HEADER || undefined,
      /** Where the hash of the first-run admin secret is kept; default: <DATA_DIR>/admin-secret.sha256. */
      adminSecretFile: process.env.ADMIN_SECRET_FILE || undefined,
      /** REQUIRE_LOGIN=1: the web app asks for sign-in from this machine too (remote browsers always sign in). */
      requireLogin: process.env.REQUIRE_LOGIN || undefined,
      /** LOCAL_OWNER=1: a loopback request without forwarding headers is the owner, no sign-in (off when PUBLIC_URL or TRUSTED_PROXIES is set). */
      localOwner: process.env.LOCAL_OWNER || undefined,
      /** Set by server.mjs: the secret of the owner sign-in link it prints at start. */
      ownerLinkToken: process.env.KB_OWNER_TOKEN || undefined,
      publicUrl: process.env.PUBLIC_URL?.trim() || undefined,
      /** How long a sign-in lasts. */
      sessionHours: intEnv("SESSION_HOURS", 168),
      /** How long an invite link stays valid. */
      inviteHours: intEnv("INVITE_HOURS", 72),
    },
    /**
     * Single sign-on through OpenID Connect (lib/auth/oidc.ts): on when OIDC_ISSUER and OIDC_CLIENT_ID are set.
     * Who may join: OIDC_ALLOWED_DOMAINS (e-mail domains) or a group in OIDC_GROUP_ROLES; with which role and
     * knowledge bases: OIDC_GROUP_ROLES ("group=role,…"), else OIDC_DEFAULT_ROLE over OIDC_DEFAULT_KBS.
     */
    oidc: {
      issuer: process.env.OIDC_ISSUER || undefined,
      clientId: process.env.OIDC_CLIENT_ID || undefined,
      clientSecret: process.env.OIDC_CLIENT_SECRET || undefined,
      /** Shown on the sign-in button, e.g. "Google" or "Okta". */
      name: process.env.OIDC_NAME || "SSO",
      allowedDomains: listEnv("OIDC_ALLOWED_DOMAINS").map((d) => d.toLowerCase().replace(/^@/, "")),
      groupsClaim: process.env.OIDC_GROUPS_CLAIM || "groups",
      groupRoles: listEnv("OIDC_GROUP_ROLES"),
      defaultRole: process.env.OIDC_DEFAULT_ROLE || "reader",
      defaultKbs: listEnv("OIDC_DEFAULT_KBS"),
      /**
       * How old the last confirmation of a single-sign-on person's membership may be before it is checked again
       * with the provider (lib/auth/accounts/sso-recheck.ts): on a schedule, and at the next use of a session,
       * token or OAuth grant.
       */
      recheckSeconds: intEnv("OIDC_RECHECK_SECONDS", 900),
      /** While the provider cannot be asked (unreachable, or no refresh token), access lasts this long past the last confirmation. */
      recheckGraceHours: intEnv("OIDC_RECHECK_GRACE_HOURS", 24),
      /** Test only: lets the issuer be a plain-http loopback or private address. */
      allowInsecureIssuer: process.env.OIDC_ALLOW_INSECURE_ISSUER === "1",
    },
    parse: parseConfig(),
    /** Background maintenance of the LanceDB store (compaction, index updates, version cleanup). */
    store: {
      /** Run maintenance this long after the first write of a burst. */
      maintenanceDelayMs: intEnv("STORE_MAINTENANCE_DELAY_MS", 3000),
      /** Stop waiting for one maintenance run after this many seconds (logged; the next run waits for it). */
      maintenanceTimeoutMs: intEnv("STORE_MAINTENANCE_TIMEOUT_S", 600) * 1000,
      /** Table versions older than this are removed by maintenance (readers of an older version would fail). */
      versionRetentionMs: intEnv("STORE_VERSION_RETENTION_S", 60) * 1000,
      /** Orphan chunks (no document row) seen at start-up are deleted when still orphans this much later. */
      orphanGraceMs: intEnv("STORE_ORPHAN_GRACE_MS", 30_000),
    },
    maxUploadBytes: intEnv("MAX_UPLOAD_MB", 50) * 1024 * 1024,
    maxUploadFiles: intEnv("MAX_UPLOAD_FILES", 20),
    /** All files of one upload together, counted on the bytes received (chunked or not). */
    maxUploadTotalBytes: intEnv("MAX_UPLOAD_TOTAL_MB", 200) * 1024 * 1024,
  };
}

export type AppConfig = ReturnType<typeof getConfig>;
