/**
 * The store's one LanceDB connection and its tables: the document tables (documents, chunks, meta) and the
 * side tables other modules keep beside them (knowledge-base registry, conversations, FAQ), all opened or
 * created here, all closed with the store, all covered by its background maintenance.
 */
import type * as lancedb from "@lancedb/lancedb";
import type { Schema } from "apache-arrow";
import { log } from "@/lib/log";
import { openOnce } from "./async";
import { pinnedVersions } from "./pinned";
import { chunksSchema, documentsSchema, metaSchema, TABLES } from "./schema";

/** A table beside the document tables, owned (rows, logic) by another module and reached through the store. */
export interface SideTable {
  /** The table, for reads. The handle changes on recreate(): read it at each use, never keep it. */
  readonly table: lancedb.Table;
  /** The table's version for a read path (readVersion): what a cache of its rows is keyed by. */
  version(): Promise<number>;
  /**
   * A write on the table: tried again when it conflicts with a concurrent commit (background maintenance
   * compacts side tables too), then background maintenance is scheduled. `fn` must be safe to run again.
   */
  write<T>(fn: (table: lancedb.Table) => Promise<T>): Promise<T>;
  /** Replaces the table by an empty one with this schema. */
  recreate(schema: Schema): Promise<void>;
}

export interface Tables {
  readonly meta: lancedb.Table;
  readonly documents: lancedb.Table;
  /** Replaced by recreateChunks(): read it at each use. */
  readonly chunks: lancedb.Table;
  /** Drops every chunk: a new, empty chunks table for vectors of this many dimensions. */
  recreateChunks(dimension: number): Promise<void>;
  /**
   * Runs `read` on the chunks table as it was at `version` (read-only): a search's coverage check and query
   * then see the same rows, however many commits land meanwhile.
   */
  chunksAt<T>(version: number, read: (chunks: lancedb.Table) => Promise<T>): Promise<T>;
  /** The side table `name`, opened (or created with `schema`) once per store. */
  side(name: string, schema: Schema): Promise<SideTable>;
  /** Every table by name, side tables included (maintenance). */
  all(): [string, lancedb.Table][];
  close(): void;
}

/**
 * How long a table version read by readVersion() stands before Lance is asked again. Each read path checks
 * a version (document metadata, full-text coverage, embedder, FAQs, knowledge bases: 11 calls per MCP search),
 * and with readConsistencyInterval 0 each call looks for a newer manifest, which costs CPU every time.
 * Another process's commit is seen at most this late; this process's own writes at once (tablesWritten).
 */
export const VERSION_TTL_MS = 100;
let writeGeneration = 0;
const versions = new WeakMap<lancedb.Table, { at: number; generation: number; version: Promise<number> }>();

/** A table's version for a read path (see VERSION_TTL_MS); writes that compare versions ask the table. */
export function readVersion(table: lancedb.Table): Promise<number> {
  const now = Date.now();
  const seen = versions.get(table);
  if (seen && seen.generation === writeGeneration && now - seen.at < VERSION_TTL_MS) return seen.version;
  const entry = { at: now, generation: writeGeneration, version: table.version() };
  versions.set(table, entry);
  entry.version.catch(() => {
    if (versions.get(table) === entry) versions.delete(table);
  });
  return entry.version;
}

/** This process committed to a table (a write, an index, maintenance): the next readVersion() asks Lance. */
export function tablesWritten(): void {
  writeGeneration++;
}

/** Lance refused a commit because another transaction committed first; nothing of this one was written. */
export function isCommitConflict(err: unknown): boolean {
  return /conflict/i.test(err instanceof Error ? err.message : String(err));
}

/**
 * Background maintenance (compaction, index updates) commits beside the writes; a write that loses that race
 * gets a commit-conflict error and nothing of it was committed, so it is simply tried again.
 */
export function retryConflicts<T>(fn: () => Promise<T>): Promise<T> {
  return retried(
    async () => {
      try {
        return await fn();
      } finally {
        tablesWritten(); // committed, or lost to someone else's commit
      }
    },
    isCommitConflict,
    "write conflicted with a concurrent commit; retrying",
  );
}

/** `fn`, tried up to 5 times while it fails with an error `transient` accepts, a little longer apart each time. */
export async function retried<T>(fn: () => Promise<T>, transient: (err: unknown) => boolean, why: string): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= 5 || !transient(err)) throw err;
      log("store").info({ attempt, err: err instanceof Error ? err.message : String(err) }, why);
      await new Promise((r) => setTimeout(r, 20 * attempt));
    }
  }
}

/**
 * Tables are created in Lance's 2.1 file format, which compresses strings: the chunks' text and index text
 * take 42 % less disk than in the 2.0 default (covidqa-en, 6,308 chunks: 5.6 → 3.3 MB). Tables created
 * before keep their format.
 */
const STORAGE = { storageOptions: { new_table_data_storage_version: "2.1" } };

/** Open when present (whatever its schema), else create; existOk covers a race with another process creating it. */
function openOrCreate(conn: lancedb.Connection, names: ReadonlySet<string>, name: string, schema: Schema): Promise<lancedb.Table> {
  return names.has(name) ? conn.openTable(name) : conn.createEmptyTable(name, schema, { mode: "create", existOk: true, ...STORAGE });
}

export async function openTables(conn: lancedb.Connection, dimension: number, afterSideWrite: () => void): Promise<Tables> {
  const names = new Set(await conn.tableNames());
  const meta = await openOrCreate(conn, names, TABLES.meta, metaSchema);
  const documents = await openOrCreate(conn, names, TABLES.documents, documentsSchema);
  let chunks = await openOrCreate(conn, names, TABLES.chunks, chunksSchema(dimension));
  const sides = new Map<string, lancedb.Table>();
  const opening = new Map<string, Promise<SideTable>>();
  let closed = false;

  const openSide = async (name: string, schema: Schema): Promise<SideTable> => {
    if (closed) throw new Error("the store is closed");
    sides.set(name, await openOrCreate(conn, new Set(await conn.tableNames()), name, schema));
    return {
      get table() {
        return sides.get(name)!;
      },
      version: () => readVersion(sides.get(name)!),
      async write(fn) {
        const result = await retryConflicts(() => fn(sides.get(name)!));
        afterSideWrite();
        return result;
      },
      async recreate(s) {
        // The old handle is left open: a read may still be running on it.
        sides.set(name, await conn.createEmptyTable(name, s, { mode: "overwrite", ...STORAGE }));
      },
    };
  };

  const all = (): [string, lancedb.Table][] => [["chunks", chunks], ["documents", documents], ["meta", meta], ...sides];
  const pins = pinnedVersions((version) => conn.openTable(TABLES.chunks, [], { version }));
  return {
    meta,
    documents,
    get chunks() {
      return chunks;
    },
    async recreateChunks(dim) {
      chunks = await conn.createEmptyTable(TABLES.chunks, chunksSchema(dim), { mode: "overwrite", ...STORAGE });
    },
    chunksAt: (version, read) => pins.read(chunks, version, read),
    side: (name, schema) => openOnce(opening, name, () => openSide(name, schema)),
    all,
    close() {
      closed = true;
      pins.close();
      for (const [, t] of all()) t.close();
      conn.close();
    },
  };
}

/**
 * A side table made before its text column `name` existed gets it (empty, nullable), so older rows still load;
 * another process adding it at the same time is fine.
 */
export async function addTextColumn(side: SideTable, name: string): Promise<void> {
  const has = async () => (await side.table.schema()).fields.some((f) => f.name === name);
  if (await has()) return;
  try {
    await side.write((t) => t.addColumns([{ name, valueSql: "CAST(NULL AS STRING)" }]));
  } catch (err) {
    await side.table.checkoutLatest();
    if (!(await has())) throw err;
  }
}

/** Writes `rows` into a side table, replacing the rows that have the same `key`. */
export function upsertRows(side: SideTable, key: string, rows: Record<string, unknown>[]) {
  return side.write((t) => t.mergeInsert(key).whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(rows));
}
