/**
 * Bulk ingestion: documents prepared one by one (./prepare.ts) and written many per commit.
 */
import type { ExtractedPair } from "@/lib/faq/extract";
import { afterDocumentsStored } from "@/lib/faq/ingest";
import { ingestQueue, recordIngest } from "@/lib/metrics";
import type { DocumentWrite, Store } from "@/lib/store";
import { documentKeys, hashKey, sourceKey } from "@/lib/store/document-cache";
import type { DocumentRecord, IngestProgress } from "@/lib/types";
import {
  contentSha256,
  errorMessage,
  type IngestInput,
  type IngestResult,
  normalizeKb,
  type PendingLookup,
  type PreparedDocument,
  prepareDocument,
} from "./prepare";

export interface BatchIngestOptions {
  onProgress?: (p: IngestProgress) => void;
  /** Commit once the pending documents hold this many chunks (default 2,000)… */
  maxChunks?: number;
  /** …or this many documents (default 200). */
  maxDocuments?: number;
}

export interface BatchFailure {
  filename: string;
  error: string;
  /** What the document was counted as when prepared, before its write failed. */
  status: "added" | "updated";
}

/**
 * Batches' worth of documents that may wait while a commit runs before add() waits for it: a commit takes
 * 40–900 ms (LanceDB's threads share the cores with the preparing), and when add() waited for the commit in
 * flight as soon as one batch was ready, the preparing stood still behind every slow commit.
 */
const BACKLOG = 4;

/**
 * Bulk ingestion (CLI, eval harness, bench): documents are prepared one by one and written many per commit,
 * each still atomic for readers. add() resolves once the document is prepared (its status is known); a full
 * batch is committed in the background while the next documents are prepared (parsing and chunking overlap
 * LanceDB's write), one commit at a time, the next batch taking all that was prepared meanwhile. Failures of
 * a commit are returned by a later add() or by flush(), which waits for every commit — a failed batch is retried
 * document by document so one bad document never loses the others. add() may be called again before it
 * resolves (see addConcurrently): documents with the same name or bytes in a knowledge base are prepared one
 * after the other, so a duplicate is still found.
 */
export function createBatchIngest(store: Store, opts: BatchIngestOptions = {}) {
  const maxChunks = opts.maxChunks ?? 2000;
  const maxDocuments = opts.maxDocuments ?? 200;
  type Entry = { filename: string; write: DocumentWrite; faqPairs?: ExtractedPair[]; bytes: number; status: IngestResult["status"] };
  let batch: Entry[] = [];
  let chunkCount = 0;
  /** The commit in flight: one at a time. */
  let commit: Promise<void> | null = null;
  /** Failures of finished commits not returned yet. */
  const unreported: BatchFailure[] = [];
  /** Ends this ingest's bulk on the store (see Store.beginBulk): set from the first add() to flush(). */
  let endBulk: (() => void) | null = null;
  /** kb + name and kb + content hash of the documents being prepared → their preparation. */
  const preparing = new Map<string, Promise<unknown>>();
  /**
   * The documents of the batch and of the commit in flight (not in the store yet, but a duplicate must still find
   * them), the latest under each key: looked up for every document prepared (walking both batches each time was
   * 1 % of a bulk ingest's main thread).
   */
  const unwritten = new Map<string, DocumentRecord>();
  const forget = (entries: readonly Entry[]) => {
    for (const { write } of entries) for (const k of documentKeys(write.doc)) if (unwritten.get(k) === write.doc) unwritten.delete(k);
  };
  const pending: PendingLookup = (kb, source, hash) => {
    const bySource = unwritten.get(sourceKey(kb, source)) ?? null;
    const byHash = unwritten.get(hashKey(kb, hash)) ?? null;
    return bySource || byHash ? { bySource, byHash } : undefined;
  };
  const done = async (entries: Entry[]) => {
    await afterDocumentsStored(
      store,
      entries.map((e) => ({ doc: e.write.doc, text: e.write.body.text, chunks: e.write.chunks, faqPairs: e.faqPairs })),
    );
    for (const e of entries) {
      opts.onProgress?.({ file: e.filename, stage: "done", documentId: e.write.doc.id, chunkCount: e.write.chunks.length });
      recordIngest(e.status, e.write.chunks.length, e.bytes);
    }
  };

  const write = async (items: Entry[]): Promise<BatchFailure[]> => {
    const failures: BatchFailure[] = [];
    try {
      await store.putDocuments(items.map((e) => e.write));
      await done(items);
    } catch {
      for (const e of items) {
        try {
          await store.putDocuments([e.write]);
          await done([e]);
        } catch (err) {
          recordIngest("failed");
          opts.onProgress?.({ file: e.filename, stage: "failed", error: errorMessage(err) });
          failures.push({ filename: e.filename, error: errorMessage(err), status: e.status === "updated" ? "updated" : "added" });
        }
      }
    } finally {
      ingestQueue(-items.length);
    }
    return failures;
  };
  /** Whether the batch is due to be committed (`times` batches' worth: see BACKLOG). */
  const due = (times = 1) => chunkCount >= times * maxChunks || batch.length >= times * maxDocuments;
  /** Commits the batch in the background; when that ends, the next batch at once if it is due by then. */
  const startCommit = () => {
    const committing = batch;
    batch = [];
    chunkCount = 0;
    commit = write(committing).then((failures) => {
      unreported.push(...failures);
      forget(committing);
      commit = null;
      if (due()) startCommit();
    });
  };
  /**
   * Prepares the document once no other document with its name or bytes in its knowledge base is being
   * prepared, and puts it in the batch before the next such one starts.
   */
  const prepareAlone = async (input: IngestInput, file: string): Promise<PreparedDocument> => {
    let keys: string[] = [];
    let contentHash: string | undefined;
    try {
      const kb = normalizeKb(input.kb);
      if (input.data instanceof Uint8Array) {
        contentHash = await contentSha256(input.data);
        keys = [`${kb}\u0000${file}`, `${kb}\u0000#${contentHash}`];
      }
    } catch {
      /* prepareDocument reports the bad input */
    }
    for (;;) {
      const busy = keys.map((k) => preparing.get(k)).filter((p) => p !== undefined);
      if (busy.length === 0) break;
      await Promise.allSettled(busy);
    }
    const work = prepareDocument(store, input, { onProgress: opts.onProgress, pending, contentHash }).then((prepared) => {
      if (prepared.write) {
        ingestQueue(1);
        batch.push({
          filename: file,
          write: prepared.write,
          faqPairs: prepared.faqPairs,
          bytes: prepared.bytes,
          status: prepared.result.status,
        });
        for (const k of documentKeys(prepared.write.doc)) unwritten.set(k, prepared.write.doc);
        chunkCount += prepared.write.chunks.length;
      }
      return prepared;
    });
    for (const k of keys) preparing.set(k, work);
    try {
      return await work;
    } finally {
      for (const k of keys) if (preparing.get(k) === work) preparing.delete(k);
    }
  };

  return {
    /** Prepares one document; throws when it cannot be ingested (nothing written). */
    async add(input: IngestInput): Promise<{ result: IngestResult; failures: BatchFailure[] }> {
      const file = input.filename;
      endBulk ??= store.beginBulk();
      let prepared: PreparedDocument;
      try {
        prepared = await prepareAlone(input, file);
      } catch (err) {
        recordIngest("failed");
        opts.onProgress?.({ file, stage: "failed", error: errorMessage(err) });
        throw err;
      }
      if (!prepared.write) {
        recordIngest("unchanged");
        return { result: prepared.result, failures: [] };
      }
      if (due() && !commit) startCommit();
      // While a commit runs, the next batch keeps growing up to BACKLOG batches' worth; past that, add() waits.
      while (commit && due(BACKLOG)) await commit;
      return { result: prepared.result, failures: unreported.splice(0) };
    },
    /** Commits what is pending and waits for every commit: the failures not returned yet. */
    async flush(): Promise<BatchFailure[]> {
      try {
        while (commit || batch.length > 0) {
          if (!commit) startCommit();
          await commit;
        }
        return unreported.splice(0);
      } finally {
        endBulk?.();
        endBulk = null;
      }
    },
  };
}

/**
 * Prepares documents for a batch ingest this many at a time (parsing in the worker pool overlaps chunking
 * here), calling `each` for every item in order of start; stops starting new ones once `each`'s `stop()` says so.
 */
export async function addConcurrently<T>(
  items: Iterable<T>,
  each: (item: T) => Promise<void>,
  o: { concurrency?: number; stop?: () => boolean } = {},
): Promise<void> {
  const concurrency = o.concurrency ?? 2;
  const running = new Set<Promise<void>>();
  for (const item of items) {
    if (o.stop?.()) break;
    const p: Promise<void> = each(item).finally(() => running.delete(p));
    running.add(p);
    if (running.size >= concurrency) await Promise.race(running);
  }
  await Promise.all(running);
}
