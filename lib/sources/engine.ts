/**
 * The sync engine, the same for every kind of source: a connector (./web.ts, ./git.ts, ./s3.ts, ./folder.ts)
 * walks the source and says per item "unchanged" (keep), "here is its content" (ingest), "not a format we read"
 * (skip) or "failed"; the engine writes documents through the ordinary ingest, and once the walk is complete
 * removes the documents of items it no longer saw. A failed item keeps its document; a failed walk removes
 * nothing. One run per source at a time; runs go one after another, in the background, so searches never wait.
 * Each run has a time budget (SOURCE_SYNC_TIMEOUT_S) and can be cancelled (the source removed): an AbortSignal
 * reaches every request and child process of the connector. A run in progress is stored as one (finishedAt null),
 * so after a crash start-up shows it as interrupted and removes the documents no item owns (reconcileSources).
 * A run holds what a walk finds in bounded memory whatever the source answers: skipped items are counted, not kept;
 * the keys it must remember (to tell what is gone) stop the run past SOURCE_MAX_ITEMS; the items it lists as failed
 * stop at MAX_LISTED, their reasons cut.
 */
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { getAuditLog } from "@/lib/audit/log";
import { getConfig, sourceLimits } from "@/lib/config";
import { ingestDocument, sha256 } from "@/lib/ingest";
import { errorMessage } from "@/lib/ingest/prepare";
import { sanitizeFileName } from "@/lib/kb/fields";
import { recordSourceSync } from "@/lib/metrics";
import { isSupported } from "@/lib/parse";
import { extensionOf } from "@/lib/parse/formats";
import { isFrontMatterOnly } from "@/lib/parse/text";
import { processGlobal } from "@/lib/process-global";
import type { Store } from "@/lib/store";
import { AppError } from "@/lib/types";
import type { SourceSecrets, SyncCounts, SyncRun } from "./schema";
import { openSecrets } from "./secrets";
import { getSourceStore, type SourceItem, type SourceRecord } from "./store";

interface FoundItem {
  key: string;
  url: string;
  /** A file name for it (its extension picks the parser). */
  name: string;
  data: Uint8Array;
  version: string | null;
  links?: string[] | null;
  /** A hash of what gets indexed, when the bytes hold more (a page's navigation): unchanged while it is. */
  fingerprint?: string;
}

export interface SyncContext {
  source: SourceRecord;
  secrets: SourceSecrets;
  previous: ReadonlyMap<string, SourceItem>;
  /** A folder of this source's own for what it keeps between runs (a Git clone). */
  workDir: string;
  /** Aborted when the run is cancelled or out of time: every request and child process takes it. */
  signal: AbortSignal;
  /** The largest item read (SOURCE_MAX_BYTES). */
  maxBytes: number;
  /** Unchanged since the last run (a 304, the same blob id): its document stays, not read or parsed again. */
  keep(key: string, patch?: Partial<SourceItem>): void;
  /** New or changed content; parsed and indexed unless its bytes are those already indexed. */
  ingest(item: FoundItem): Promise<void>;
  /** Something the source holds that no parser reads, or a key it may not fetch: counted, not kept. */
  skip(key: string): void;
  /** Could not be read this time: its document (if any) stays. */
  fail(key: string, reason: string): void;
  /** Whether this item was already handled in this run. */
  seen(key: string): boolean;
  /**
   * Bookkeeping a source keeps between runs that is no document (a mailbox's UIDVALIDITY, which thread a message
   * is in): stored under `key` while the source still holds it, not counted in the run's figures.
   */
  track(key: string, version: string): Promise<void>;
}

export type Connector = (ctx: SyncContext) => Promise<{ note?: string }>;

/** Whether a file name is one the parsers read (connectors skip the rest without fetching them). */
export const readable = (name: string) => isSupported(name);

/** The stored file name of an item: its own name, made unique in the knowledge base by the source and key. */
function itemFileName(sourceId: string, key: string, name: string): string {
  const ext = extensionOf(name);
  const stem = sanitizeFileName(name).slice(0, 150 - ext.length);
  const base = ext && stem.toLowerCase().endsWith(ext) ? stem.slice(0, -ext.length) : stem;
  return sanitizeFileName(`${base || "index"} (${sha256(`${sourceId}\u0000${key}`).slice(0, 6)})${ext}`);
}

interface Running {
  seen: number;
  done: number;
  promise: Promise<SyncRun>;
  controller: AbortController;
  /** Its turn came (until then it waits for the runs of other sources). */
  started: boolean;
  /** An editor confirmed indexing the whole source (past SOURCE_CONFIRM_OVER). */
  confirmed: boolean;
}

const state = () =>
  processGlobal("sourceSync", () => ({ running: new Map<string, Running>(), queue: Promise.resolve() as Promise<unknown> }));

export function runningOf(sourceId: string): { seen: number; done: number } | null {
  const r = state().running.get(sourceId);
  return r ? { seen: r.seen, done: r.done } : null;
}

export function runningPromise(sourceId: string): Promise<SyncRun> | undefined {
  return state().running.get(sourceId)?.promise;
}

/**
 * Syncs a source now (or joins the run under way); runs of different sources wait for one another. The result
 * is stored as the source's last run, with its next run scheduled.
 */
export function syncSource(store: Store, source: SourceRecord, connector: Connector, opts: { confirmed?: boolean } = {}): Promise<SyncRun> {
  const s = state();
  const existing = s.running.get(source.id);
  if (existing) return existing.promise;
  const entry: Running = {
    seen: 0,
    done: 0,
    promise: Promise.resolve() as unknown as Promise<SyncRun>,
    controller: new AbortController(),
    started: false,
    confirmed: !!opts.confirmed,
  };
  const promise = s.queue.then(() => {
    entry.started = true;
    return runOnce(store, source, connector, entry);
  });
  entry.promise = promise;
  s.running.set(source.id, entry);
  s.queue = promise.catch(() => {});
  void promise.finally(() => s.running.delete(source.id)).catch(() => {});
  return promise;
}

/**
 * Stops the run of a source under way, e.g. because the source is being removed; resolves once it stopped. A
 * run still waiting for its turn is not waited for: it ends as soon as its turn comes, having done nothing.
 */
export async function cancelSync(sourceId: string, reason: string): Promise<void> {
  const r = state().running.get(sourceId);
  if (!r) return;
  r.controller.abort(new AppError("cancelled", reason));
  if (r.started) await r.promise.catch(() => {});
}

/** Failed and noted items a run lists at most (the rest are counted); a reason's length at most. */
const MAX_LISTED = 100;
const MAX_REASON = 500;

/** At most MAX_REASON characters of `s`, as a string of its own (a slice would keep all of `s`, e.g. a whole answer, alive). */
const cut = (s: string) => Buffer.from(s.length > MAX_REASON ? `${s.slice(0, MAX_REASON)}…` : s, "utf8").toString("utf8");

const listed = (list: { item: string; reason: string }[], item: string, reason: string) => {
  if (list.length >= MAX_LISTED) return false;
  list.push({ item: cut(item), reason: cut(reason) });
  return true;
};

/** What an aborted run says: the reason it was given. */
const abortReason = (signal: AbortSignal) => (signal.reason instanceof Error ? signal.reason.message : String(signal.reason));

async function runOnce(store: Store, source: SourceRecord, connector: Connector, progress: Running): Promise<SyncRun> {
  const sources = await getSourceStore(store);
  const startedAt = new Date().toISOString();
  const counts: SyncCounts = { added: 0, updated: 0, unchanged: 0, removed: 0, skipped: 0, failed: [], notes: [] };
  const { signal } = progress.controller;
  // Cancelled while it waited (its source removed meanwhile): nothing to do, nothing to record.
  if (signal.aborted) return { ...counts, startedAt, finishedAt: startedAt, error: abortReason(signal), note: null };
  const { maxBytes, syncTimeoutMs, maxItems, confirmOver } = sourceLimits();
  // A first sync stops past SOURCE_CONFIRM_OVER items until an editor confirms; a source that synced whole before
  // this was recorded (no `confirmed` in its last run) counts as confirmed.
  const last = source.lastRun;
  const confirmed = progress.confirmed || confirmOver <= 0 || (last?.confirmed ?? (!!last?.finishedAt && last.error === null));
  let awaiting = false;
  const budget = setTimeout(
    () => progress.controller.abort(new Error(`the sync took longer than its budget of ${syncTimeoutMs / 1000} s (SOURCE_SYNC_TIMEOUT_S)`)),
    syncTimeoutMs,
  );
  await markRunning(store, source.id, startedAt, confirmed);
  const stored = await sources.items(source.id);
  // A document deleted in the app since the last run is brought back: its item is not "unchanged".
  const live = await store.getDocuments([...stored.values()].flatMap((i) => (i.documentId ? [i.documentId] : [])));
  const previous = new Map([...stored].filter(([, i]) => !i.documentId || live.has(i.documentId)));
  // The stored items this walk saw again (the others are gone), and every key it handled: keys only.
  const survivors = new Set<string>();
  const handled = new Set<string>();
  let pending: SourceItem[] = [];
  const flush = async () => {
    const batch = pending;
    pending = [];
    if (batch.length) await sources.saveItems(source.id, batch, []);
  };
  const handle = (key: string) => {
    if (!confirmed && handled.size >= confirmOver) {
      awaiting = true;
      throw new Error(
        `the source holds more than ${confirmOver} items (SOURCE_CONFIRM_OVER): the first ${confirmOver} were indexed; confirm to index them all`,
      );
    }
    if (handled.size >= maxItems)
      throw new Error(
        `the source holds more than ${maxItems} items (SOURCE_MAX_ITEMS): nothing was removed; raise the limit or narrow the source`,
      );
    handled.add(key);
    progress.seen++;
  };
  let owners: Map<string, string> | null = null;
  const movedAway = new Set<string>();
  /** The key of the stored item each document belongs to (built once, when the first duplicate is met). */
  const ownerOf = () => {
    owners ??= new Map([...stored.values()].flatMap((i) => (i.documentId ? [[i.documentId, i.key] as [string, string]] : [])));
    return owners;
  };
  const survives = (key: string) => {
    if (stored.has(key)) survivors.add(key);
  };
  const fail = (key: string, reason: string) => {
    if (!listed(counts.failed, key, reason)) counts.failedUnlisted = (counts.failedUnlisted ?? 0) + 1;
    if (previous.has(key)) survives(key);
  };
  const record = async (item: SourceItem) => {
    survives(item.key);
    pending.push(item);
    progress.done++;
    if (pending.length >= 50) await flush();
  };
  let error: string | null = null;
  let note: string | null = null;
  try {
    signal.throwIfAborted();
    const workDir = path.join(workRoot(), source.id);
    await mkdir(workDir, { recursive: true });
    const ctx: SyncContext = {
      source,
      secrets: openSecrets(source.secret),
      previous,
      workDir,
      signal,
      maxBytes,
      seen: (key) => handled.has(key),
      async track(key, version) {
        signal.throwIfAborted();
        if (handled.has(key)) return;
        handle(key);
        survives(key);
        if (stored.get(key)?.version === version) return;
        pending.push({ key, url: "", documentId: null, version, contentHash: null, links: null });
        if (pending.length >= 50) await flush();
      },
      keep(key, patch) {
        signal.throwIfAborted();
        const before = previous.get(key);
        // Its document went with a move in this run: nothing to keep (a copy left behind is indexed as the duplicate it is).
        if (!before || handled.has(key) || movedAway.has(key)) return;
        handle(key);
        counts.unchanged++;
        survives(key);
        progress.done++;
        if (patch) pending.push({ ...before, ...patch });
      },
      skip(key) {
        signal.throwIfAborted();
        if (handled.has(key)) return;
        counts.skipped++;
        progress.seen++;
        // Kept only when a stored item has this key (its row stays); any other skipped key is only counted.
        if (stored.has(key)) {
          handle(key);
          survives(key);
        }
      },
      fail(key, reason) {
        signal.throwIfAborted();
        if (handled.has(key)) return;
        handle(key);
        fail(key, reason);
      },
      async ingest(found) {
        signal.throwIfAborted();
        if (handled.has(found.key)) return;
        handle(found.key);
        const before = previous.get(found.key);
        const contentHash = found.fingerprint ?? sha256(found.data);
        const base = { key: found.key, url: found.url, version: found.version, contentHash, links: found.links ?? null };
        if (before?.documentId && before.contentHash === contentHash && (await store.getDocument(before.documentId))) {
          counts.unchanged++;
          return record({ ...base, documentId: before.documentId });
        }
        if (!readable(found.name)) {
          counts.skipped++;
          return record({ ...base, documentId: null });
        }
        if (isFrontMatterOnly(found.name, found.data)) {
          counts.skipped++;
          listed(counts.notes!, found.key, "front matter only, no text to index");
          if (before?.documentId && (await store.deleteDocument(before.documentId))) counts.removed++;
          return record({ ...base, documentId: null });
        }
        try {
          const filename = itemFileName(source.id, found.key, found.name);
          const defaultTitle = found.name.replace(/\.[^.]+$/, "");
          const input = { filename, defaultTitle, data: found.data, kb: source.kb, origin: "source" as const };
          let r = await ingestDocument(store, input, { signal });
          // The same bytes as the document of an item of this source not seen yet in this walk: the item moved (a
          // rename). Its old document goes now and this one is indexed under the new name, rather than being taken
          // for a duplicate of a document the end of the walk would remove. A copy (the other item seen later) is
          // then the duplicate.
          // The same holds for this item's own document under its old name (a drive file renamed, its id the key).
          const movedFrom = r.document.source !== filename ? ownerOf().get(r.document.id) : undefined;
          const renamed = movedFrom === found.key;
          if (movedFrom !== undefined && (renamed || !handled.has(movedFrom)) && (await store.deleteDocument(r.document.id))) {
            if (!renamed) {
              counts.removed++;
              movedAway.add(movedFrom);
            }
            r = await ingestDocument(store, input, { signal });
          }
          // The same bytes as another document of the knowledge base: that one stays, and is not this item's.
          const own = r.document.source === filename;
          // Its old document goes when it is no longer this item's: a duplicate now, or a new name (a wiki page moved).
          if (before?.documentId && before.documentId !== (own ? r.document.id : null)) await store.deleteDocument(before.documentId);
          if (own && r.status === "unchanged") counts.unchanged++;
          else if (own && before?.documentId) counts.updated++;
          else if (own) counts.added++;
          else counts.skipped++;
          await record({ ...base, documentId: own ? r.document.id : null });
        } catch (err) {
          signal.throwIfAborted();
          fail(found.key, errorMessage(err));
        }
      },
    };
    note = (await connector(ctx)).note ?? null;
    signal.throwIfAborted();
    // The walk completed: what it no longer saw is gone from the source.
    const gone = [...stored.keys()].filter((k) => !survivors.has(k));
    for (const key of gone) {
      const id = stored.get(key)?.documentId;
      if (id && (await store.deleteDocument(id))) counts.removed++;
    }
    await flush();
    await sources.saveItems(source.id, [], gone);
  } catch (err) {
    error = cut(signal.aborted ? abortReason(signal) : errorMessage(err));
    await flush().catch(() => {});
  } finally {
    clearTimeout(budget);
  }
  const run: SyncRun = {
    ...counts,
    startedAt,
    finishedAt: new Date().toISOString(),
    error,
    note,
    confirmed: confirmed || error === null,
    ...(awaiting ? { needsConfirmation: confirmOver } : {}),
  };
  const failed = counts.failed.length + (counts.failedUnlisted ?? 0);
  recordSourceSync(source.id, { ...counts, failed }, error === null);
  (await getAuditLog(store)).record({
    actor: "sources",
    actorId: null,
    action: "source_sync",
    outcome: error ? "failed" : "ok",
    target: source.id,
    kb: source.kb,
    detail:
      error ??
      `${counts.added} added, ${counts.updated} updated, ${counts.unchanged} unchanged, ${counts.removed} removed, ${failed} failed`,
    address: "server",
  });
  const current = await sources.get(source.id);
  if (current) await sources.put({ ...current, lastRun: run, nextRunAt: nextRunAfter(current.scheduleMinutes) });
  return run;
}

/** The run under way is stored as the source's last run, unfinished: after a crash it reads as interrupted. */
async function markRunning(store: Store, sourceId: string, startedAt: string, confirmed: boolean): Promise<void> {
  const sources = await getSourceStore(store);
  const current = await sources.get(sourceId);
  const empty = { added: 0, updated: 0, unchanged: 0, removed: 0, skipped: 0, failed: [] };
  if (current) await sources.put({ ...current, lastRun: { ...empty, startedAt, finishedAt: null, error: null, note: null, confirmed } });
}

export function nextRunAfter(minutes: number, from = Date.now()): string | null {
  return minutes > 0 ? new Date(from + minutes * 60_000).toISOString() : null;
}

/** Where sources keep what they need between runs: beside a local data folder, else in the temp folder. */
function workRoot(): string {
  const dir = getConfig().dataDir;
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(dir) ? path.join(process.env.TMPDIR || "/tmp", "kb-sources") : path.join(dir, "source-work");
}
