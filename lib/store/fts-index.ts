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

/**
 * Maintenance folds new rows into the full-text index as another partition, merged with the others only up to
 * Lance's partition target, so an index started by the first write of a bulk ingest ends up in pieces that
 * repeat their token dictionaries and are searched one by one. Once this share of the rows came in that way
 * it is rebuilt in one piece, when writes are quiet (smaller, faster queries; see README, "Design notes and
 * measurements").
 */
const FTS_REBUILD_GROWTH = 0.25;
/** How often ftsAvailable() looks for an index another process may have made. */
const FTS_RECHECK_MS = 1000;

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
 * query met before pays for it; see README, "Design notes and measurements").
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
export function createFtsIndex(tables: Pick<Tables, "chunks">, recent: RecentWrites) {
  let ready = false;
  let checkedAt = 0;
  /** Rows when this process last built the index in one piece; null: it found the index already there. */
  let builtRows: number | null = null;
  /** How many times this process built the index in one piece. */
  let builds = 0;
  let ensuring: Promise<void> | null = null;
  /**
   * The latest chunks version at which every row outside the full-text index is in the freshness net: one the
   * index covered whole, followed only by this process's puts and deletes (each taking the version one up).
   * Any other commit (maintenance, another process, a move) leaves the table at another version, so the chain
   * ends until the index covers everything again. Lance's full-text query scans the rows its index does not
   * cover for every query, which slows searches down while uploads keep coming (see README, "Design notes and
   * measurements"); while the chain holds, a search skips that scan (fastSearch).
   */
  let own: number | null = null;
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

  /** The chunks version, whether the index covers all of it (checked once per version), and whether `own` holds. */
  const coverageNow = async () => {
    const version = await readVersion(tables.chunks);
    if (coverage.version !== version) {
      const index = await indexOn(tables.chunks, FTS_COLUMN);
      if (index) ready = true;
      const s = index ? await tables.chunks.indexStats(index.name) : undefined;
      coverage = { version, complete: s !== undefined && s.numUnindexedRows === 0 };
    }
    return { ...coverage, inRecent: !coverage.complete && own === coverage.version && !recent.overflowed() };
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
    async beforeCommit(): Promise<number> {
      const version = await tables.chunks.version();
      const c = await coverageNow();
      if (c.complete && c.version === version) own = version;
      return version;
    },
    committed(before: number, after: number, commits: number): void {
      own = own === before && after === before + commits ? after : null;
    },
    /** The chunks table was emptied: the index goes with it. */
    reset(): void {
      ready = false;
      own = null;
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
