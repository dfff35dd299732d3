import { createHash } from "node:crypto";
import { chunkText, embeddingText, HEADING_SEPARATOR } from "@/lib/chunk";
import { getConfig } from "@/lib/config";
import { afterDocumentStored } from "@/lib/faq/ingest";
import { parseDocument } from "@/lib/parse";
import type { DocumentBody, Store, StoredChunk } from "@/lib/store";
import { toIndexText } from "@/lib/tokenize";
import { AppError, type DocumentRecord, type IngestProgress, type ParsedDocument } from "@/lib/types";

export interface IngestInput {
  filename: string;
  data: Uint8Array;
  kb?: string;
  title?: string;
  author?: string;
  tags?: string[];
  origin?: DocumentRecord["origin"];
}

export interface IngestResult {
  document: DocumentRecord;
  status: "added" | "updated" | "unchanged";
}

export interface IngestOptions {
  onProgress?: (p: IngestProgress) => void;
  signal?: AbortSignal;
}

export const MAX_KB_CHARS = 64;
export const MAX_TAGS = 32;

export function sha256(data: Uint8Array | string): string {
  return createHash("sha256").update(data).digest("hex");
}

/** The file name without any directory part (either slash), trimmed; never used as a path. */
export function safeFileName(filename: string): string {
  const base = String(filename ?? "").split(/[\\/]/).pop()!.trim();
  if (!base || base === "." || base === "..") throw new AppError("bad_request", "The file has no name.");
  if (base.length > 255) throw new AppError("bad_request", "The file name is longer than 255 characters.");
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(base)) throw new AppError("bad_request", "The file name contains control characters.");
  return base;
}

export function normalizeKb(kb: string | undefined): string {
  const name = (kb ?? getConfig().defaultKb).trim();
  if (!name) throw new AppError("bad_request", "The knowledge base name is empty.");
  if (name.length > MAX_KB_CHARS) throw new AppError("bad_request", `The knowledge base name is longer than ${MAX_KB_CHARS} characters.`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) throw new AppError("bad_request", "The knowledge base name contains control characters.");
  return name;
}

/** Same kb + same file name ⇒ same document id, so re-ingesting a file replaces it in place. */
export function documentId(kb: string, source: string): string {
  return sha256(`${kb}\u0000${source}`).slice(0, 24);
}

/**
 * parse → chunk → embed → store for one file. Unchanged files (same bytes under the same name, or the same
 * bytes already in the kb under another name) are skipped before parsing. Any failure leaves what is stored
 * untouched: the only write is the final putDocument.
 */
export async function ingestDocument(store: Store, input: IngestInput, opts: IngestOptions = {}): Promise<IngestResult> {
  const file = safeFileName(input.filename);
  const emit = (p: Omit<IngestProgress, "file">) => opts.onProgress?.({ file, ...p });
  try {
    emit({ stage: "received" });
    const kb = normalizeKb(input.kb);
    if (!(input.data instanceof Uint8Array)) throw new AppError("bad_request", "The file has no content.");
    const tags = normalizeTags(input.tags);
    const contentHash = sha256(input.data);

    const { bySource: existing, byHash: same } = await store.matchDocument(kb, file, contentHash);
    if (existing?.contentHash === contentHash) return skipped(existing, emit);
    if (!existing && same) return skipped(same, emit);

    opts.signal?.throwIfAborted();
    emit({ stage: "parsing" });
    const parsed = await parse(file, input.data);

    const id = existing?.id ?? documentId(kb, file);
    const body: DocumentBody = { text: parsed.text, pages: parsed.pages };
    const chunks = await buildChunks(store, { id, kb }, body, { ...opts, emit });

    emit({ stage: "indexing", total: chunks.length });
    const now = new Date().toISOString();
    const document: DocumentRecord = {
      id,
      kb,
      title: clean(input.title) ?? clean(parsed.title) ?? file.replace(/\.[^.]+$/, ""),
      source: file,
      contentHash,
      size: input.data.byteLength,
      mimeType: parsed.mimeType,
      author: clean(input.author) ?? null,
      tags,
      origin: input.origin ?? "upload",
      chunkCount: chunks.length,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    };
    opts.signal?.throwIfAborted();
    await store.putDocument(document, body, chunks);
    await afterDocumentStored(store, document, body.text, chunks);
    emit({ stage: "done", documentId: id, chunkCount: chunks.length });
    return { document, status: existing ? "updated" : "added" };
  } catch (err) {
    emit({ stage: "failed", error: errorMessage(err) });
    throw err;
  }
}

/**
 * chunk → embed for a document body. Vectors of chunks whose embedded text is already stored (same text
 * hash; the store holds one embedder's vectors) are reused, so unchanged chunks are never embedded twice.
 */
export async function buildChunks(
  store: Store,
  doc: { id: string; kb: string },
  body: DocumentBody,
  opts: IngestOptions & { emit?: (p: Omit<IngestProgress, "file">) => void } = {},
): Promise<StoredChunk[]> {
  const emit = opts.emit ?? (() => {});
  emit({ stage: "chunking" });
  const cfg = getConfig();
  const pieces = chunkText(body.text, { size: cfg.chunkSize, overlap: cfg.chunkOverlap, pages: body.pages });
  if (pieces.length === 0) throw new AppError("parse_failed", "The document contains no text.", 422);

  const texts = pieces.map(embeddingText);
  const hashes = texts.map((t) => sha256(t));
  const cached = await store.cachedVectors(hashes);
  const todo = [...new Set(hashes.filter((h) => !cached.has(h)))];
  const textOf = new Map(hashes.map((h, i) => [h, texts[i]]));
  const total = hashes.length;
  const reused = total - hashes.filter((h) => !cached.has(h)).length;
  emit({ stage: "embedding", done: reused, total });
  if (todo.length > 0) {
    opts.signal?.throwIfAborted();
    const vectors = await store.embedder.embed(
      todo.map((h) => textOf.get(h)!),
      { signal: opts.signal, onProgress: (done) => emit({ stage: "embedding", done: Math.min(total, reused + done), total }) },
    );
    if (vectors.length !== todo.length) throw new AppError("internal", "The embedder returned the wrong number of vectors.", 502);
    todo.forEach((h, i) => cached.set(h, vectors[i]));
    emit({ stage: "embedding", done: total, total });
  }

  return pieces.map((c, i) => ({
    id: `${doc.id}:${c.index}`,
    documentId: doc.id,
    kb: doc.kb,
    index: c.index,
    heading: c.headingPath.join(HEADING_SEPARATOR),
    start: c.start,
    end: c.end,
    page: c.page ?? null,
    text: c.text,
    indexText: toIndexText(texts[i]),
    textHash: hashes[i],
    vector: cached.get(hashes[i])!,
  }));
}

async function parse(file: string, data: Uint8Array): Promise<ParsedDocument> {
  let parsed: ParsedDocument;
  try {
    parsed = await parseDocument(file, data);
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError("parse_failed", `Could not read "${file}": ${errorMessage(err)}`, 422);
  }
  if (!parsed.text.trim()) throw new AppError("parse_failed", `"${file}" contains no text.`, 422);
  return parsed;
}

function skipped(document: DocumentRecord, emit: (p: Omit<IngestProgress, "file">) => void): IngestResult {
  emit({ stage: "skipped", documentId: document.id, chunkCount: document.chunkCount });
  return { document, status: "unchanged" };
}

function normalizeTags(tags: unknown): string[] {
  if (tags === undefined || tags === null) return [];
  if (!Array.isArray(tags) || tags.some((t) => typeof t !== "string")) throw new AppError("bad_request", "Tags must be a list of strings.");
  const out = [...new Set(tags.map((t: string) => t.trim()).filter(Boolean))];
  if (out.length > MAX_TAGS) throw new AppError("bad_request", `At most ${MAX_TAGS} tags.`);
  return out;
}

function clean(s: string | undefined | null): string | undefined {
  const t = s?.trim();
  return t ? t : undefined;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
