import { sqlEq } from "./sql";
import { type SideTable, upsertRows } from "./tables";

/**
 * What `load` reads from a side table, kept while the table's version stays (a write here moves it at once,
 * another process's within readVersion's 100 ms); a failed load is not kept. For tables read on every request
 * (tokens, grants, the knowledge-base catalog).
 */
export function versionCached<T>(side: SideTable, load: () => Promise<T>): () => Promise<T> {
  let entry: { version: number; value: Promise<T> } | null = null;
  return async (): Promise<T> => {
    const version = await side.version();
    if (entry?.version !== version) {
      const value = load();
      entry = { version, value };
      value.catch(() => {
        if (entry?.value === value) entry = null;
      });
    }
    return entry.value;
  };
}

/**
 * A side table of records keyed by the column `key`: all of them (read whole, in `order`, cached per table
 * version), one by its key, and writes of one record, each through `serialized`.
 */
export function keyedRows<T>(
  side: SideTable,
  serialized: <R>(fn: () => Promise<R>) => Promise<R>,
  rows: { key: string; keyOf(record: T): string; fromRow(row: Record<string, unknown>): T; toRow(record: T): Record<string, unknown> },
  order?: (a: T, b: T) => number,
) {
  const all = versionCached(side, async () => {
    const records = (await side.table.query().toArray()).map(rows.fromRow);
    return order ? records.sort(order) : records;
  });
  return {
    all,
    async get(key: string): Promise<T | null> {
      return (await all()).find((r) => rows.keyOf(r) === key) ?? null;
    },
    put(record: T): Promise<void> {
      return serialized(async () => {
        await upsertRows(side, rows.key, [rows.toRow(record)]);
      });
    },
    remove(key: string): Promise<void> {
      return serialized(async () => {
        await side.write((t) => t.delete(sqlEq(rows.key, key)));
      });
    },
  };
}
