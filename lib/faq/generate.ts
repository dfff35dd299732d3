/**
 * Model-generated FAQ pairs: with a model configured, up to N question–answer pairs per section (chunk) of a
 * document, grounded in the section (answers quoted or closely paraphrased; pairs whose answer the section
 * does not support are dropped), in the section's language. Runs in the background after the document is
 * searchable, with progress, cancellable, and cached by content hash (the section text and the model), so
 * re-ingesting unchanged content costs no model call. Generated pairs wait in the FAQ tab for review.
 */
import { createHash } from "node:crypto";
import { createOpenAI } from "@ai-sdk/openai";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { generateText } from "ai";
import { type AppConfig, getConfig } from "@/lib/config";
import { MAX_FAQ_QUESTION_CHARS } from "@/lib/limits";
import type { Store } from "@/lib/store";
import { tokenize } from "@/lib/tokenize";
import type { ChunkRecord, DocumentRecord } from "@/lib/types";
import type { GenerationProgress } from "./generate-types";
import { getFaqStore, type NewFaq } from "./store";

export type { GenerationProgress };

/** Pairs asked for per section; FAQ_GENERATE_PAIRS (0 = no generation at ingest). */
function pairsPerSection(): number {
  const raw = Number.parseInt(process.env.FAQ_GENERATE_PAIRS ?? "", 10);
  return Number.isFinite(raw) && raw > 0 ? Math.min(raw, 10) : 0;
}

/** The system prompt; the fake model of the tests recognises it by its first words. */
const GENERATION_PROMPT = `You write FAQ question-answer pairs grounded in a section of a document.
Rules:
- Write at most {n} pairs that a reader of this section would ask, in the language of the section.
- Each answer must be quoted from the section or closely paraphrase it. Never add facts the section does not state.
- Reply with JSON only: {"pairs":[{"question":"...","answer":"..."}]}. Reply {"pairs":[]} if the section answers no question.`;

/** Share of an answer's search tokens that must occur in its section for the pair to be kept. */
const GROUNDED_SHARE = 0.75;

export function isGrounded(answer: string, section: string): boolean {
  const tokens = tokenize(answer);
  if (tokens.length === 0) return false;
  const have = new Set(tokenize(section));
  return tokens.filter((t) => have.has(t)).length / tokens.length >= GROUNDED_SHARE;
}

export interface GeneratedPair {
  question: string;
  answer: string;
}

/** The pairs of a model reply (JSON, possibly fenced or with text around it); [] when unreadable. */
export function parsePairs(text: string): GeneratedPair[] {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end <= start) return [];
  try {
    const v = JSON.parse(text.slice(start, end + 1)) as { pairs?: unknown };
    if (!Array.isArray(v.pairs)) return [];
    return v.pairs
      .filter((p): p is GeneratedPair => !!p && typeof p.question === "string" && typeof p.answer === "string")
      .map((p) => ({ question: p.question.trim().slice(0, MAX_FAQ_QUESTION_CHARS), answer: p.answer.trim().slice(0, 4000) }))
      .filter((p) => p.question && p.answer);
  } catch {
    return [];
  }
}

export interface GenerateOptions {
  model: LanguageModelV4;
  /** Part of the cache key: another model generates anew. */
  modelId: string;
  pairs: number;
  signal?: AbortSignal;
  onProgress?: (p: GenerationProgress) => void;
}

function chatModelFor(config: AppConfig["chat"]): LanguageModelV4 | null {
  if (!config.apiKey) return null;
  return createOpenAI({ apiKey: config.apiKey, baseURL: config.baseURL }).chat(config.model);
}

/** Generates, checks and stores the pairs of one document (replacing its earlier generated pairs). */
export async function generateDocumentFaqs(
  store: Store,
  doc: Pick<DocumentRecord, "id" | "kb">,
  chunks: readonly Pick<ChunkRecord, "id" | "text">[],
  opts: GenerateOptions,
): Promise<GenerationProgress> {
  const faqs = await getFaqStore(store);
  const p: GenerationProgress = { documentId: doc.id, status: "running", done: 0, total: chunks.length, cached: 0, kept: 0, dropped: 0 };
  const emit = () => opts.onProgress?.({ ...p });
  emit();
  const entries: NewFaq[] = [];
  try {
    for (const chunk of chunks) {
      opts.signal?.throwIfAborted();
      const key = createHash("sha256").update(`${opts.modelId}\u0000${opts.pairs}\u0000${chunk.text}`).digest("hex");
      let reply = await faqs.cachedGeneration(key);
      if (reply !== null) p.cached++;
      else {
        const result = await generateText({
          model: opts.model,
          system: GENERATION_PROMPT.replace("{n}", String(opts.pairs)),
          prompt: chunk.text,
          maxRetries: 1,
          abortSignal: opts.signal,
        });
        reply = result.text;
        await faqs.cacheGeneration(key, reply);
      }
      for (const pair of parsePairs(reply).slice(0, opts.pairs)) {
        if (!isGrounded(pair.answer, chunk.text)) {
          p.dropped++;
          continue;
        }
        p.kept++;
        entries.push({
          id: createHash("sha256").update(`${doc.kb}\u0000${doc.id}\u0000gen\u0000${pair.question}`).digest("hex").slice(0, 24),
          kb: doc.kb,
          question: pair.question,
          answer: pair.answer,
          source: { documentId: doc.id, chunkId: chunk.id, label: "model" },
          origin: "generated",
          status: "pending",
        });
      }
      p.done++;
      emit();
    }
    const seen = new Set<string>();
    await faqs.replaceForDocument(
      doc.id,
      "generated",
      entries.filter((e) => !seen.has(e.id!) && seen.add(e.id!)),
    );
    p.status = "done";
  } catch (err) {
    // A cancelled run stores nothing new; what the cache holds is kept for the next run.
    p.status = opts.signal?.aborted ? "cancelled" : "failed";
    if (p.status === "failed") p.error = err instanceof Error ? err.message : String(err);
  }
  emit();
  return p;
}

// ---- background jobs, one per document, kept on globalThis (every route bundle shares them) ----

interface Job {
  progress: GenerationProgress;
  controller: AbortController;
  done: Promise<GenerationProgress>;
}
const KEY = Symbol.for("kb-mcp-chat.faq-generation");
type G = typeof globalThis & { [KEY]?: Map<string, Job> };
const jobs = () => ((globalThis as G)[KEY] ??= new Map());

/** Starts (or restarts) generation for a document in the background; never throws, never blocks. */
export function startGeneration(
  store: Store,
  doc: Pick<DocumentRecord, "id" | "kb" | "source">,
  chunks: readonly Pick<ChunkRecord, "id" | "text">[],
  options: { model?: LanguageModelV4; modelId?: string; pairs?: number } = {},
): GenerationProgress | null {
  const config = getConfig().chat;
  const model = options.model ?? chatModelFor(config);
  const pairs = options.pairs ?? (pairsPerSection() || 3);
  if (!model) return null;
  jobs().get(doc.id)?.controller.abort();
  const controller = new AbortController();
  const job: Job = {
    progress: { documentId: doc.id, status: "running", done: 0, total: chunks.length, cached: 0, kept: 0, dropped: 0 },
    controller,
    done: Promise.resolve(null as unknown as GenerationProgress),
  };
  jobs().set(doc.id, job);
  job.done = generateDocumentFaqs(store, doc, chunks, {
    model,
    modelId: options.modelId ?? config.model,
    pairs,
    signal: controller.signal,
    onProgress: (p) => {
      job.progress = p;
    },
  }).then((p) => {
    if (p.status === "failed") console.error(`[faq] generation for "${doc.source}" failed: ${p.error}`);
    return p;
  });
  return job.progress;
}

export function generationProgress(documentId: string): GenerationProgress | null {
  return jobs().get(documentId)?.progress ?? null;
}

/** Waits for a document's generation to end (tests, CLI). */
export function generationDone(documentId: string): Promise<GenerationProgress> | null {
  return jobs().get(documentId)?.done ?? null;
}

export function cancelGeneration(documentId: string): boolean {
  const job = jobs().get(documentId);
  if (job?.progress.status !== "running") return false;
  job.controller.abort();
  return true;
}

/** The ingest hook: generation at ingest only when FAQ_GENERATE_PAIRS is set and a model is configured. */
export function generateAfterIngest(store: Store, doc: DocumentRecord, chunks: readonly ChunkRecord[]): void {
  const pairs = pairsPerSection();
  if (pairs > 0) startGeneration(store, doc, chunks, { pairs });
}
