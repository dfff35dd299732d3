/**
 * The chunks table's indexes (full-text, vector) and the background maintenance of every table: index
 * updates, compaction and version cleanup (lib/store/maintenance runs it off the write path).
 */
import * as lancedb from "@lancedb/lancedb";
import { log } from "@/lib/log";
import type { Gate } from "./async";
import { createFtsIndex, indexOn, prewarmFts } from "./fts-index";
import { createMaintainer, type MaintenanceReport } from "./maintenance";
import type { RecentWrites } from "./recent";
import { FTS_COLUMN } from "./schema";
import { type Tables, tablesWritten } from "./tables";
import type { TextIndexState } from "./types";

/**
 * Below this many chunks, exact (flat) vector search is fast enough; above it an HNSW index with scalar
 * quantization keeps queries fast at about the same recall (see docs/design-decisions.md).
 * Background maintenance builds it; rows added since are searched flat.
 */
const VECTOR_INDEX_MIN_ROWS = 5000;
/** A run armed to drop versions comes this long after they are past the retention. */
const CLEANUP_SLACK_MS = 1000;
/**
 * Each maintenance folds new rows into the vector index as a new segment, and every segment is searched
 * separately: rebuild the index in one piece when it has more segments than this, or when the rows it does
 * not cover reach REBUILD_UNINDEXED_FRACTION of those it does.
 */
const MAX_VECTOR_INDEX_SEGMENTS = 4;
const REBUILD_UNINDEXED_FRACTION = 0.25;
/**
 * A rebuild reads every vector, so while writes keep coming (a bulk ingest) it waits until the store has been
 * quiet this long, unless the index covers less than half of the rows: one rebuild at the end instead of one
 * every few thousand rows.
 */
const REBUILD_QUIET_MS = 10_000;
const VECTOR_INDEX_NAME = "vector_idx";
/**
 * Folding new rows into the full-text index happens in Table.optimize(), which also compacts, and Lance merges
 * every fragment under a million rows: one upload's single new row made it rewrite the whole chunks and
 * documents files, seconds of both cores per upload on a large store (see docs/design-decisions.md).
 * So background maintenance optimizes the chunks and documents tables of a store past
 * FOLD_ALWAYS_BELOW_ROWS chunks only once
 * FOLD_MIN_FRACTION of the chunks wait outside the index or the first unfolded write is FOLD_MAX_WAIT_MS old;
 * until then this process's new chunks are found through the freshness net (lib/store/recent.ts) and Lance's
 * flat scan of unindexed rows (skipped while the net holds them all: `own` in lib/store/fts-index.ts). A small store's fold is
 * cheap in time but not in memory: it writes a new full-text index that searches then load into Lance's index
 * cache beside the old one (kept up to LANCE_INDEX_CACHE_MB), so only tiny stores fold every write. An
 * explicit optimize() always folds.
 */
const FOLD_ALWAYS_BELOW_ROWS = 200;
const FOLD_MIN_FRACTION = 0.02;
/**
 * While writes keep coming (a bulk ingest: less than REBUILD_QUIET_MS between them) the share that waits may
 * grow to this before a fold, so a bulk ingest compacts a few times instead of at every 2 % (each fold rewrites
 * the whole table); the run after the writes stop folds the rest.
 */
const FOLD_BULK_FRACTION = 0.25;
const FOLD_MAX_WAIT_MS = 5 * 60_000;
const BIG_TABLES = new Set(["chunks", "documents"]);

export interface IndexOptions {
  prewarm?: boolean;
  foldAlwaysBelowRows?: number;
  writeQuietMs?: number;
  vectorIndexMinRows?: number;
  maintenanceDelayMs?: number;
  maintenanceTimeoutMs?: number;
  versionRetentionMs?: number;
}

export interface Indexes {
  /** After a write to the document tables: the first one creates the full-text index, the rest is background work. */
  afterWrite(): Promise<void>;
  /** Whether the chunks' full-text index exists (another process may have created it: looked for at most once a second). */
  ftsAvailable(): Promise<boolean>;
  /**
   * The chunks table's version, whether the full-text index covers all of it (checked once per version) and,
   * if not, whether every chunk it lacks was written by this process and is in the freshness net (see `own` in lib/store/fts-index.ts).
   */
  ftsCoverage(): Promise<TextIndexState>;
  /**
   * Before a put or delete of this process that commits to the chunks table and puts its chunks in (or takes
   * them out of) the freshness net; the function it returns is told how many commits it made, once the net
   * holds them (0 if it failed).
   */
  chunkWrite(): (commits: number) => void;
  /** The chunks table was emptied: the full-text index goes with it. */
  chunksReset(): void;
  optimize(retainMs?: number): Promise<void>;
  schedule(): void;
  /** Runs maintenance, waits until this process's last versions are past the retention, and drops them (the CLI's end). */
  settle(): Promise<void>;
  /** Resolves once the full-text index asked to be loaded at open (prewarm) is in memory, or failed to load. */
  warmed(): Promise<void>;
  beginBulk(): () => void;
  idle(): Promise<void>;
  /** No more maintenance; resolves once the run and the index load under way (if any) have ended. */
  stop(): Promise<void>;
}

/**
 * Builds the vector index past `minRows` chunks, and rebuilds it in one piece once fragmented, unless
 * `deferWhileWriting()` (the writes have not stopped) and it still covers most rows: then `recheck` asks for
 * another look once they stop.
 */
async function maintainVectorIndex(
  chunks: lancedb.Table,
  o: { minRows: number; deferWhileWriting: () => boolean; recheck: () => void },
): Promise<string> {
  if (o.minRows <= 0) return "off";
  const rows = await chunks.countRows();
  const existing = await indexOn(chunks, "vector");
  if (existing) {
    const s = await chunks.indexStats(existing.name);
    const fragmented =
      s !== undefined &&
      ((s.numIndices ?? 1) > MAX_VECTOR_INDEX_SEGMENTS || s.numUnindexedRows > REBUILD_UNINDEXED_FRACTION * s.numIndexedRows);
    if (!fragmented) return `kept (${s?.numIndices ?? 1} segments, ${s?.numUnindexedRows ?? 0} rows unindexed)`;
    if (o.deferWhileWriting() && s.numUnindexedRows < s.numIndexedRows) {
      o.recheck(); // look again once the writes stop
      return `rebuild deferred while writes continue (${s.numIndices ?? 1} segments)`;
    }
  } else if (rows < o.minRows) return "not needed";
  await chunks.createIndex("vector", {
    config: lancedb.Index.hnswSq({ distanceType: "cosine" }),
    replace: true,
    name: VECTOR_INDEX_NAME,
  });
  return `built over ${rows} rows`;
}

/**
 * `folds`: a fold of the big tables holds it exclusively, this process's deletes and replacements shared. Lance
 * fails a compaction when a delete or update of the rows it rewrites commits meanwhile ("Rewrite transaction was
 * preempted by concurrent transaction Delete"); appends do not conflict and never wait. At a million chunks a
 * fold takes 30–40 s and a delete came every 10 s, so no fold succeeded (see docs/design-decisions.md).
 */
export async function openIndexes(tables: Tables, opts: IndexOptions, recent: RecentWrites, folds: Gate): Promise<Indexes> {
  const logger = log("store");
  const vectorIndexMinRows = opts.vectorIndexMinRows ?? VECTOR_INDEX_MIN_ROWS;
  const retention = opts.versionRetentionMs ?? 60_000;
  const quietMs = opts.writeQuietMs ?? REBUILD_QUIET_MS;
  let lastWriteAt = 0;
  /** The last commit of this process, a write's or a maintenance run's: its predecessors may go a retention later. */
  let lastCommitAt = 0;
  let cleanupTimer: ReturnType<typeof setTimeout> | undefined;
  /** Writes to the chunks and documents tables, and when the first one not yet folded (optimized) came. */
  let writes = 0;
  let unfoldedSince: number | null = null;
  let foldTimer: ReturnType<typeof setTimeout> | undefined;
  /**
   * Batch ingests of this process under way (CLI, --reindex, the eval harness, the bench: Store.beginBulk).
   * Meanwhile the big tables are not folded at all: each fold rewrites the tables written so far and adds
   * every row to an index the end of the bulk rebuilds anyway, which made a bulk ingest slower (see docs/design-decisions.md).
   * Its chunks are found through the freshness net meanwhile.
   */
  let bulks = 0;
  let stopped = false;
  /** Runs asked for with another retention than the maintainer's, outside its schedule. */
  const outside = new Set<Promise<void>>();
  const fts = createFtsIndex(tables, recent);
  const maintainFtsIndex = (canDefer: boolean): Promise<string> =>
    fts.maintain((added, rows) => {
      if (!canDefer) return null;
      if (bulks > 0) return `rebuild deferred while a bulk ingest is under way (${added} of ${rows} rows added since built)`;
      if (Date.now() - lastWriteAt < quietMs) {
        maintainer.schedule();
        return `rebuild deferred while writes continue (${added} of ${rows} rows added since built)`;
      }
      return null;
    });
  /** Why the big tables' optimize waits, or null when it is due (see FOLD_ALWAYS_BELOW_ROWS). */
  const foldWait = async (background: boolean): Promise<string | null> => {
    if (!background || unfoldedSince === null) return null;
    const waited = Date.now() - unfoldedSince;
    // The run after the bulk ends (beginBulk's end schedules one) folds.
    if (bulks > 0) return `deferred: a bulk ingest is under way, first unfolded write ${Math.round(waited / 1000)} s ago`;
    const rows = await tables.chunks.countRows();
    if (rows < (opts.foldAlwaysBelowRows ?? FOLD_ALWAYS_BELOW_ROWS)) return null;
    if (waited >= FOLD_MAX_WAIT_MS) return null;
    const index = await indexOn(tables.chunks, FTS_COLUMN);
    const unindexed = index ? ((await tables.chunks.indexStats(index.name))?.numUnindexedRows ?? 0) : rows;
    const bulk = Date.now() - lastWriteAt < quietMs;
    if (unindexed >= (bulk ? FOLD_BULK_FRACTION : FOLD_MIN_FRACTION) * rows) return null;
    clearTimeout(foldTimer);
    // Once the writes stop, look again (the 2 % rule); in any case after FOLD_MAX_WAIT_MS.
    foldTimer = setTimeout(() => maintainer.schedule(), bulk ? quietMs : FOLD_MAX_WAIT_MS - waited);
    foldTimer.unref?.();
    return `deferred: ${unindexed} of ${rows} chunks unindexed, first unfolded write ${Math.round(waited / 1000)} s ago${bulk ? ", writes continue" : ""}`;
  };
  const versionsOf = () => Promise.all(tables.all().map(([, t]) => t.version()));
  const maintain = async (retainMs: number, background = false): Promise<MaintenanceReport> => {
    const report: MaintenanceReport = {};
    const versionsBefore = await versionsOf();
    const step = async (name: string, fn: () => Promise<unknown>) => {
      if (stopped) {
        report[name] = "skipped: the store is closing";
        return;
      }
      const t0 = performance.now();
      const detail = await fn().finally(tablesWritten);
      report[name] =
        typeof detail === "string" ? `${detail} in ${Math.round(performance.now() - t0)} ms` : Math.round(performance.now() - t0);
    };
    const written = recent.generation();
    const writesBefore = writes;
    const buildsBefore = fts.builds;
    await step("fts", fts.ensure);
    // No fold of the big tables during a bulk ingest (see foldWait), whose writes would not pause for the mark.
    const foldFrom = bulks > 0 ? null : await fts.beforeFold();
    await step("fts_rebuild", () => maintainFtsIndex(background)); // before the cleanup below, which then drops the old one
    // A build follows a bulk of writes, whose many small fragments want compacting: no reason to wait then.
    const wait = await foldWait(background && fts.builds === buildsBefore);
    // Compaction, index updates (new rows into the full-text and vector indices), version cleanup; side tables too.
    const cleanupOlderThan = new Date(Date.now() - retainMs);
    for (const [name, t] of tables.all()) {
      if (wait && BIG_TABLES.has(name)) report[`optimize_${name}`] = wait;
      else if (BIG_TABLES.has(name)) await step(`optimize_${name}`, () => folds.exclusive(() => t.optimize({ cleanupOlderThan })));
      else await step(`optimize_${name}`, () => t.optimize({ cleanupOlderThan }));
    }
    if (!wait) {
      recent.foldedUpTo(written); // the full-text index now covers what was written before this run
      unfoldedSince = writes === writesBefore ? null : Date.now();
      await fts.folded(foldFrom);
    }
    await step("vector_index", () =>
      maintainVectorIndex(tables.chunks, {
        minRows: vectorIndexMinRows,
        deferWhileWriting: () => background && Date.now() - lastWriteAt < quietMs,
        recheck: () => maintainer.schedule(),
      }),
    );
    // Lance updates the indices after its cleanup: a run that committed anything leaves a version of its own.
    const versionsAfter = await versionsOf();
    if (versionsAfter.some((v, i) => v !== versionsBefore[i])) lastCommitAt = Date.now();
    armCleanup();
    return report;
  };
  /**
   * Versions younger than the retention survive a run; without another write no run would come to drop them
   * (a data dir stayed several times the raw text after an ingest). One more run is armed for when the last write's
   * versions are past the retention.
   */
  const cleanupDue = () => lastCommitAt + retention + CLEANUP_SLACK_MS;
  const armCleanup = () => {
    clearTimeout(cleanupTimer);
    const wait = cleanupDue() - Date.now();
    if (stopped || lastCommitAt === 0 || wait <= 0) return;
    cleanupTimer = setTimeout(() => maintainer.schedule(), wait);
    cleanupTimer.unref?.();
  };
  const maintainer = createMaintainer((_deadline, explicit) => maintain(retention, !explicit), {
    delayMs: opts.maintenanceDelayMs ?? 3000,
    timeoutMs: opts.maintenanceTimeoutMs ?? 600_000,
    retryMs: 30_000,
    logger,
  });

  await fts.ensure();
  const warming = opts.prewarm && fts.ready ? prewarmFts(tables.chunks, logger) : Promise.resolve();

  return {
    async afterWrite() {
      lastWriteAt = Date.now();
      lastCommitAt = lastWriteAt;
      writes++;
      unfoldedSince ??= lastWriteAt;
      if (!fts.ready) await fts.ensure();
      maintainer.schedule();
    },
    ftsAvailable: () => fts.available(),
    ftsCoverage: () => fts.coverage(),
    chunkWrite: () => fts.beginWrite(),
    chunksReset: () => fts.reset(),
    optimize(retainMs = retention) {
      if (retainMs === retention) return maintainer.runNow();
      const run = maintain(retainMs).then(() => undefined);
      outside.add(run);
      void run.catch(() => undefined).finally(() => outside.delete(run));
      return run;
    },
    schedule: () => maintainer.schedule(),
    warmed: () => warming,
    beginBulk() {
      bulks++;
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        bulks--;
        // Its writes are over: what waits for writes to stop (the full-text rebuild) need not wait another
        // REBUILD_QUIET_MS, which made the first run fold every row into the old index and the next rebuild it.
        if (bulks === 0) lastWriteAt = 0;
        maintainer.schedule();
      };
    },
    idle: () => maintainer.idle(),
    async settle() {
      await maintainer.runNow();
      // A run that commits (an index update after its cleanup) leaves one version more: a few rounds at most.
      for (let round = 0; round < 3 && lastCommitAt > 0 && cleanupDue() > Date.now(); round++) {
        await new Promise((r) => setTimeout(r, cleanupDue() - Date.now()));
        await maintainer.runNow();
      }
    },
    stop() {
      stopped = true;
      clearTimeout(foldTimer);
      clearTimeout(cleanupTimer);
      maintainer.stop();
      return Promise.allSettled([maintainer.idle(), warming, ...outside]).then(() => undefined);
    },
  };
}
