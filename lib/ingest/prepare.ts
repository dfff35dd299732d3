/**
 * One document's ingest: checks, parse, chunk, embed (prepareDocument), and ingestDocument, which writes it.
 * The batch writer (./batch.ts) writes many prepared documents per commit.
 */
import { createHash } from "node:crypto";
import { HEADING_SEPARATOR } from "@/lib/chunk";
import { type ChunkSettings, type IndexedChunk, indexedChunks } from "@/lib/chunk/indexed";
import { readLazily } from "@/lib/chunk/packed";
import { chunkingConfig, defaultKbName } from "@/lib/config";
import { makesVectors } from "@/lib/embed";
import type { ExtractedPair } from "@/lib/faq/extract";
import { afterDocumentsStored } from "@/lib/faq/ingest";
import { tagsSchema } from "@/lib/kb/fields";
import { checkKbName } from "@/lib/kb/names";
import { countEmbeddingCache, ingestQueue, recordIngest } from "@/lib/metrics";
import { type OcrProgress, type ParsedAndChunked, parseDocument } from "@/lib/parse";
import { inByteSlices, mapInSlices } from "@/lib/slices";
import type { DocumentBody, DocumentWrite, Store, StoredChunk } from "@/lib/store";
import { chunkId } from "@/lib/store/schema";
import { isWellFormedAttachmentKb } from "@/lib/tools/scope";
import { AppError, type DocumentRecord, type IngestProgress } from "@/lib/types";

/** What comes in with a document: its name and tags already under the rules of ./fields, applied where it came in. */
export interface IngestInput {
  /** The stored name (sanitizeFileName, or fileNameOf for a file that comes without a form). */
  filename: string;
  data: Uint8Array;
  kb?: string;
  title?: string;
  /** The title when neither `title` nor the file itself gives one (default: the file name without its extension). */
  defaultTitle?: string;
  author?: string;
  /** Checked tags (tagsSchema, or parseTags). */
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

export function sha256(data: Uint8Array | string): string {
  return createHash("sha256").update(data).digest("hex");
}

/** sha256 of a file's bytes, hashed a few megabytes at a time with the event loop served in between. */
export async function contentSha256(data: Uint8Array): Promise<string> {
  const hash = createHash("sha256");
  await inByteSlices(data.byteLength, (from, to) => hash.update(data.subarray(from, to)));
  return hash.digest("hex");
}

export function normalizeKb(kb: string | undefined): string {
  // A question's attachment (made by the upload route; no input schema admits the name).
  if (kb !== undefined && isWellFormedAttachmentKb(kb)) return kb;
  const checked = checkKbName(kb ?? defaultKbName());
  if (!checked.ok) throw new AppError("bad_request", checked.message);
  return checked.name;
}

/** A document parsed, chunked and embedded, not yet written (see prepareDocument). */
export interface PreparedDocument {
  result: IngestResult;
  /** What to write; absent when the document is unchanged. */
  write?: DocumentWrite;
  /** The FAQ pairs the parse worker recognised in the text (see afterDocumentsStored). */
  faqPairs?: ExtractedPair[];
  bytes: number;
}

/**
 * parse → chunk → embed → store for one file. Unchanged files (same bytes under the same name, or the same
 * bytes already in the kb under another name) are skipped before parsing. Any failure leaves what is stored
 * untouched: the only write is the final putDocument.
 */
export async function ingestDocument(store: Store, input: IngestInput, opts: IngestOptions = {}): Promise<IngestResult> {
  const file = input.filename;
  const emit = (p: Omit<IngestProgress, "file">) => opts.onProgress?.({ file, ...p });
  ingestQueue(1);
  try {
    const prepared = await prepareDocument(store, input, opts);
    if (prepared.write) {
      opts.signal?.throwIfAborted();
      await store.putDocument(prepared.write.doc, prepared.write.body, prepared.write.chunks);
      const { doc, body, chunks } = prepared.write;
      await afterDocumentsStored(store, [{ doc, text: body.text, chunks, faqPairs: prepared.faqPairs }]);
      emit({ stage: "done", documentId: prepared.result.document.id, chunkCount: prepared.write.chunks.length });
    }
    recordIngest(prepared.result.status, prepared.write?.chunks.length ?? 0, prepared.write ? prepared.bytes : 0);
    return prepared.result;
  } catch (err) {
    recordIngest("failed");
    emit({ stage: "failed", error: errorMessage(err) });
    throw err;
  } finally {
    ingestQueue(-1);
  }
}

/**
 * Everything of an ingest but the write: checks, parse, chunk, embed. Emits progress up to "indexing"
 * (or "skipped"); the caller writes `write` and emits "done". Throws (after no write) on bad input.
 */
export async function prepareDocument(
  store: Store,
  input: IngestInput,
  opts: IngestOptions & { pending?: PendingLookup; contentHash?: string } = {},
): Promise<PreparedDocument> {
  const file = input.filename;
  const emit = (p: Omit<IngestProgress, "file">) => opts.onProgress?.({ file, ...p });
  emit({ stage: "received" });
  const kb = normalizeKb(input.kb);
  if (!(input.data instanceof Uint8Array)) throw new AppError("bad_request", "The file has no content.");
  const tags = input.tags ?? [];
  const contentHash = opts.contentHash ?? (await contentSha256(input.data));
  const bytes = input.data.byteLength;

  const stored = await store.matchDocument(kb, file, contentHash);
  const pending = opts.pending?.(kb, file, contentHash);
  const existing = pending?.bySource ?? stored.bySource;
  const same = pending?.byHash ?? stored.byHash;
  if (existing?.contentHash === contentHash) return { result: skipped(existing, emit), bytes };
  if (!existing && same) return { result: skipped(same, emit), bytes };

  opts.signal?.throwIfAborted();
  emit({ stage: "parsing" });
  // An OCR page is reported as it starts: "1/3" while the first of three is read.
  const onOcrPage = ({ page, total }: OcrProgress) => emit({ stage: "ocr", done: page, total });
  const parsed = await parse(file, input.data, chunkSettings(), onOcrPage);

  const id = existing?.id ?? (await store.documentIds())(kb, file);
  const body: DocumentBody = { text: parsed.text, pages: parsed.pages, utf8: parsed.utf8 };
  const chunks = await buildChunks(store, { id, kb }, body, { ...opts, emit, chunked: parsed.chunks });

  emit({ stage: "indexing", total: chunks.length });
  const now = new Date().toISOString();
  const document: DocumentRecord = {
    id,
    kb,
    title: clean(input.title) ?? clean(parsed.title) ?? clean(input.defaultTitle) ?? file.replace(/\.[^.]+$/, ""),
    source: file,
    contentHash,
    size: bytes,
    mimeType: parsed.mimeType,
    author: clean(input.author) ?? clean(parsed.author) ?? null,
    tags: tags.length ? tags : documentTags(parsed.tags),
    origin: input.origin ?? "upload",
    chunkCount: chunks.length,
    createdAt: existing?.createdAt ?? now,
    updatedAt: now,
  };
  return {
    result: { document, status: existing ? "updated" : "added" },
    write: { doc: document, body, chunks },
    faqPairs: parsed.faqPairs,
    bytes,
  };
}

/** Documents prepared but not yet written, looked up like store.matchDocument (for batches). */
export type PendingLookup = (
  kb: string,
  source: string,
  contentHash: string,
) => { bySource: DocumentRecord | null; byHash: DocumentRecord | null } | undefined;

/**
 * chunk → embed for a document body (no embedding when the store keeps no vectors). Vectors of the document's
 * chunks whose embedded text is already stored (same text hash; the store holds one embedder's vectors) are
 * reused, so a re-ingest embeds only what changed. `chunked`: the body's chunks as the parse worker made them.
 */
export async function buildChunks(
  store: Store,
  doc: { id: string; kb: string },
  body: DocumentBody,
  opts: IngestOptions & { emit?: (p: Omit<IngestProgress, "file">) => void; chunked?: IndexedChunk[] } = {},
): Promise<StoredChunk[]> {
  const emit = opts.emit ?? (() => {});
  emit({ stage: "chunking" });
  const pieces = opts.chunked ?? indexedChunks(body.text, { ...chunkSettings(), pages: body.pages });
  if (pieces.length === 0) throw new AppError("parse_failed", "The document contains no text.");

  const withVectors = makesVectors(store.embedder);
  const texts = withVectors ? pieces.map((c) => c.embedText) : [];
  const hashes = withVectors ? await mapInSlices(texts, (t) => sha256(t)) : [];
  const vectors = withVectors ? await embedChunks(store, doc.id, texts, hashes, opts, emit) : null;
  // text and indexText are read from the piece when needed: a packed piece (from the parse worker) keeps them encoded.
  return mapInSlices(pieces, (c, i) =>
    readLazily(
      {
        id: chunkId(doc.id, c.index),
        documentId: doc.id,
        kb: doc.kb,
        index: c.index,
        heading: c.headingPath.join(HEADING_SEPARATOR),
        start: c.start,
        end: c.end,
        page: c.page ?? null,
        textHash: hashes[i] ?? "",
        vector: vectors?.get(hashes[i]) ?? [],
      },
      { text: () => c.text, indexText: () => c.indexText },
    ),
  );
}

/** Vectors by text hash: the document's unchanged chunks keep theirs, the rest are embedded. */
async function embedChunks(
  store: Store,
  documentId: string,
  texts: string[],
  hashes: string[],
  opts: IngestOptions,
  emit: (p: Omit<IngestProgress, "file">) => void,
): Promise<Map<string, number[]>> {
  const cached = await store.cachedVectors(documentId, hashes);
  const todo = [...new Set(hashes.filter((h) => !cached.has(h)))];
  const textOf = new Map(hashes.map((h, i) => [h, texts[i]]));
  const total = hashes.length;
  const reused = total - hashes.filter((h) => !cached.has(h)).length;
  countEmbeddingCache(reused, total - reused);
  emit({ stage: "embedding", done: reused, total });
  if (todo.length > 0) {
    opts.signal?.throwIfAborted();
    const vectors = await store.embedder.embed(
      todo.map((h) => textOf.get(h)!),
      { signal: opts.signal, onProgress: (done) => emit({ stage: "embedding", done: Math.min(total, reused + done), total }) },
    );
    if (vectors.length !== todo.length) throw new AppError("upstream", "The embedder returned the wrong number of vectors.");
    for (const [i, h] of todo.entries()) cached.set(h, vectors[i]);
    emit({ stage: "embedding", done: total, total });
  }
  return cached;
}

function chunkSettings(): ChunkSettings {
  const cfg = chunkingConfig();
  return { size: cfg.chunkSize, overlap: cfg.chunkOverlap };
}

async function parse(
  file: string,
  data: Uint8Array,
  chunking: ChunkSettings,
  onOcrPage: (p: OcrProgress) => void,
): Promise<ParsedAndChunked> {
  let parsed: ParsedAndChunked;
  try {
    parsed = await parseDocument(file, data, { chunking, onOcrPage });
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError("parse_failed", `Could not read "${file}": ${errorMessage(err)}`);
  }
  if (!parsed.text.trim()) throw new AppError("parse_failed", `"${file}" contains no text.`);
  return parsed;
}

function skipped(document: DocumentRecord, emit: (p: Omit<IngestProgress, "file">) => void): IngestResult {
  emit({ stage: "skipped", documentId: document.id, chunkCount: document.chunkCount });
  return { document, status: "unchanged" };
}

/** Tags a document declares itself (front matter), where they pass the same checks as given ones; else none. */
function documentTags(tags: string[] | undefined): string[] {
  if (!tags?.length) return [];
  const parsed = tagsSchema.safeParse(tags);
  return parsed.success ? parsed.data : [];
}

function clean(s: string | undefined | null): string | undefined {
  const t = s?.trim();
  return t ? t : undefined;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
