/**
 * The chunks table's full-text index: created by the first write (or found, when another process made it),
 * rebuilt in one piece once maintenance has folded too many rows into it as extra partitions, and how much of
 * the table it covers (what a search needs to know to skip Lance's scan of the rows it lacks).
 */
import * as lancedb from "@lancedb/lancedb";
import type { Logger } from "@/lib/log";
import type { RecentWrites } from "./recent";
import { FTS_COLUMN } from "./schema";
import { isCommitConflict, readVersion, type Tables, tablesWritten } from "./tables";
import type { TextIndexState } from "./types";

/**
 * Maintenance folds new rows into the full-text index as another partition, merged with the others only up to
 * Lance's partition target, so an index started by the first write of a bulk ingest ends up in pieces that
 * repeat their token dictionaries and are searched one by one. Once this share of the rows came in that way
 * it is rebuilt in one piece, when writes are quiet (smaller, faster queries; see docs/design-decisions.md).
 */
const FTS_REBUILD_GROWTH = 0.25;
/** How often ftsAvailable() looks for an index another process may have made. */
const FTS_RECHECK_MS = 1000;
/** The most commits one fold of this process makes to the chunks table (see `folded`). */
const MAX_FOLD_COMMITS = 4;
/** How long a fold waits for this process's writes to pause, to read where it starts and ends. */
const MARK_WAIT_MS = 10_000;

/** A chunks version and how many chunk commits this process had counted by then. */
type Mark = { version: number; commits: number };

/** Text is tokenized by lib/tokenize before it gets here, so LanceDB must only split on spaces. */
export function whitespaceFtsIndex() {
  return lancedb.Index.fts({
    baseTokenizer: "whitespace",
    lowercase: false,
    stem: false,
    removeStopWords: false,
    asciiFolding: false,
    withPosition: false,
    maxTokenLength: 64,
  });
}

/** The index of `table` over `column`, if there is one. */
export async function indexOn(table: lancedb.Table, column: string): Promise<lancedb.IndexConfig | undefined> {
  return (await table.listIndices()).find((i) => i.columns.includes(column));
}

/**
 * Loads the full-text index whole (queries otherwise load it piece by piece, and a query meeting words no
 * query met before pays for it; see docs/design-decisions.md).
 */
export async function prewarmFts(chunks: lancedb.Table, logger: Logger): Promise<void> {
  try {
    const index = await indexOn(chunks, FTS_COLUMN);
    if (!index) return;
    const t0 = performance.now();
    await chunks.prewarmIndex(index.name);
    logger.info({ ms: Math.round(performance.now() - t0) }, "full-text index loaded into memory");
  } catch (err) {
    logger.warn({ err: err instanceof Error ? err.message : String(err) }, "could not load the full-text index into memory");
  }
}

/** The full-text index of `tables.chunks` (read at each use: recreateChunks() replaces the table). */
export function createFtsIndex(tables: Pick<Tables, "chunks" | "chunksAt">, recent: RecentWrites) {
  let ready = false;
  let checkedAt = 0;
  /** Rows when this process last built the index in one piece; null: it found the index already there. */
  let builtRows: number | null = null;
  /** How many times this process built the index in one piece. */
  let builds = 0;
  let ensuring: Promise<void> | null = null;
  /**
   * Whether every row outside the full-text index is in the freshness net, counted by commits: `base` is a
   * chunks version at which that held (the index covered every row, or this process's fold had just covered
   * every row but those it wrote meanwhile), with how many chunk commits this process had counted by then. It
   * still holds at version V while every commit since was this process's own put or delete (V − base.version
   * = own − base.commits): any other commit (another process, a move, a maintenance run still under way) makes
   * the counts differ, and searches then let Lance scan the rows its index lacks. Lance's full-text query scans
   * them for every query, which slowed searches down while uploads kept coming (see docs/design-decisions.md);
   * while this holds, a search skips that scan (fastSearch).
   */
  let base: Mark | null = null;
  /** This process's chunk commits, counted once the net holds what they wrote; and puts or deletes under way. */
  let own = 0;
  let writing = 0;
  let writesDone: PromiseWithResolvers<void> | null = null;
  let coverage = { version: -1, complete: false };

  const build = async (rows: number) => {
    await tables.chunks.createIndex(FTS_COLUMN, { config: whitespaceFtsIndex(), replace: true }).finally(tablesWritten);
    builtRows = rows;
    builds++;
  };

  /**
   * Creates the index if no one has. A write and a maintenance run may both ask at once (the first write came
   * while a run was under way; two of them committing CreateIndex made the write fail with a commit
   * conflict): they share one build. Another process may win the race: its index is taken.
   */
  const ensure = (): Promise<void> => {
    if (ready) return Promise.resolve();
    ensuring ??= (async () => {
      if (!(await indexOn(tables.chunks, FTS_COLUMN))) {
        const rows = await tables.chunks.countRows();
        if (rows === 0) return;
        try {
          await build(rows);
        } catch (err) {
          if (!isCommitConflict(err) || !(await indexOn(tables.chunks, FTS_COLUMN))) throw err;
        }
      }
      ready = true;
    })().finally(() => {
      ensuring = null;
    });
    return ensuring;
  };

  /**
   * The chunks version, whether the index covers all of it (checked once per version, on the table as it was
   * then), whether `base` holds, and the net as it was before the version was read: a fold may take from the
   * net what it just indexed, which a search of that version does not see.
   */
  const coverageNow = async (): Promise<TextIndexState> => {
    const recentChunks = recent.list();
    const version = await readVersion(tables.chunks);
    let state = coverage.version === version ? coverage : null;
    if (!state) {
      const complete = await tables.chunksAt(version, async (chunks) => {
        const index = await indexOn(chunks, FTS_COLUMN);
        if (index) ready = true;
        const s = index ? await chunks.indexStats(index.name) : undefined;
        return s !== undefined && s.numUnindexedRows === 0;
      });
      state = { version, complete };
      if (version >= coverage.version) coverage = state;
    }
    // A version read while a write is under way may hold commits not counted yet: no new base from it.
    if (writing === 0 && state.complete && (base === null || version >= base.version)) base = { version, commits: own };
    const holds = base !== null && version - base.version === own - base.commits;
    return { ...state, inRecent: !state.complete && holds && !recent.overflowed(), recent: recentChunks };
  };

  /**
   * The chunks version and this process's commit count, read while none of its writes is under way; null when
   * the writes did not pause for MARK_WAIT_MS (back-to-back writes: a bulk ingest).
   */
  const quietMark = async (): Promise<Mark | null> => {
    const deadline = Date.now() + MARK_WAIT_MS;
    while (Date.now() < deadline) {
      if (writesDone) {
        await Promise.race([writesDone.promise, new Promise((r) => setTimeout(r, 100))]);
        continue;
      }
      const commits = own;
      const version = await tables.chunks.version();
      if (writing === 0 && own === commits) return { version, commits };
    }
    return null;
  };

  return {
    get ready() {
      return ready;
    },
    get builds() {
      return builds;
    },
    ensure,
    coverage: coverageNow,
    /** Whether the index exists (another process may have created it: looked for at most once a second). */
    async available(): Promise<boolean> {
      if (ready) return true;
      if (Date.now() - checkedAt < FTS_RECHECK_MS) return false;
      checkedAt = Date.now();
      if (!(await indexOn(tables.chunks, FTS_COLUMN))) return false;
      ready = true;
      return true;
    },
    /**
     * Around a put or delete of this process that commits to the chunks table: `done(commits)` once the net
     * holds what it wrote (0 when it failed: what it did commit then ends the rule until the index covers all).
     */
    beginWrite(): (commits: number) => void {
      writing++;
      writesDone ??= Promise.withResolvers();
      let ended = false;
      return (commits) => {
        if (ended) return;
        ended = true;
        own += commits;
        if (--writing === 0) {
          writesDone?.resolve();
          writesDone = null;
        }
      };
    },
    /** Before this process folds (rebuilds the index, or optimizes: compaction and index update). */
    beforeFold: quietMark,
    /**
     * After a fold that covered every row at some version after `from`: the rows it left out are the ones this
     * process wrote meanwhile (all in the net) unless another process committed too. Lance's optimize commits
     * once to three times (compaction, index update, a cleanup commit) and a rebuild once; more commits than
     * that and this process's writes mean another writer, and the rule waits for the next full cover.
     */
    async folded(from: Mark | null): Promise<void> {
      const to = from && (await quietMark());
      if (to && to.version - from.version - (to.commits - from.commits) <= MAX_FOLD_COMMITS) base = to;
    },
    /** The chunks table was emptied: the index goes with it. */
    reset(): void {
      ready = false;
      base = null;
    },
    /**
     * Rebuilds the index in one piece once FTS_REBUILD_GROWTH of the rows came in since it was built, unless
     * `deferral` gives a reason to wait (then that reason is the report).
     */
    async maintain(deferral: (added: number, rows: number) => string | null): Promise<string> {
      if (!ready) return "none yet";
      const rows = await tables.chunks.countRows();
      builtRows ??= rows; // an index this process found is taken as it is
      const added = rows - builtRows;
      if (added <= FTS_REBUILD_GROWTH * rows) return `kept (${Math.max(0, added)} rows added since built)`;
      const deferred = deferral(added, rows);
      if (deferred) return deferred;
      await build(rows);
      return `rebuilt in one piece over ${rows} rows`;
    },
  };
}
