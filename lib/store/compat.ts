/**
 * Embedder compatibility: the meta table records the embedder the index was built with; a store opened with
 * another one refuses to serve (or, for a reindex, says so), and another process reindexing is noticed.
 */
import type * as lancedb from "@lancedb/lancedb";
import type { Embedder } from "@/lib/embed";
import { AppError } from "@/lib/types";
import { SCHEMA_VERSION, TABLES, vectorDimension } from "./schema";
import { readVersion, type Tables, tablesWritten } from "./tables";

const REINDEX_IN_PROGRESS = "(unfinished reindex)";

export interface EmbedderCheck {
  /** Set when opened with allowMismatch and the index was built with another embedder. */
  readonly mismatch: string | null;
  /** Between beginReindex() and commit(). */
  readonly reindexing: boolean;
  /** Throws embedder_mismatch when another process recorded another embedder since this one looked. */
  assertCompatible(): Promise<void>;
  /** Until commit(), no embedder matches the half-built index. */
  beginReindex(): Promise<void>;
  /** Records this store's embedder as the one the index was built with. */
  commit(): Promise<void>;
}

type Built = { name: string; dimension: number };

function mismatchMessage(uri: string, built: Built, embedder: Embedder): string {
  return (
    `The index at ${uri} was built with embedder ${built.name} (dim ${built.dimension}) but the app is configured ` +
    `with ${embedder.name} (dim ${embedder.dimension}). Run \`npm run ingest -- --reindex\` to rebuild the index.`
  );
}

/** The embedder the index at this connection was built with, or null (nothing built yet). */
export async function builtEmbedder(conn: lancedb.Connection): Promise<Built | null> {
  if (!(await conn.tableNames()).includes(TABLES.meta)) return null;
  const meta = await conn.openTable(TABLES.meta);
  try {
    const m = new Map((await meta.query().toArray()).map((r) => [String(r.key), String(r.value)]));
    const name = m.get("embedder_name");
    return name === undefined ? null : { name, dimension: Number(m.get("embedder_dimension")) };
  } finally {
    meta.close();
  }
}

/** Checks the embedder on open: adopts it for an empty store, throws embedder_mismatch unless `allowMismatch`. */
export async function checkEmbedder(uri: string, tables: Tables, embedder: Embedder, allowMismatch: boolean): Promise<EmbedderCheck> {
  const { meta } = tables;
  const readMeta = async () => {
    const rows = await meta.query().toArray();
    return new Map(rows.map((r) => [String(r.key), String(r.value)]));
  };
  const writeMeta = async (name = embedder.name) => {
    const rows = [
      { key: "embedder_name", value: name },
      { key: "embedder_dimension", value: String(embedder.dimension) },
      { key: "schema_version", value: SCHEMA_VERSION },
    ];
    await meta.mergeInsert("key").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(rows);
    tablesWritten();
  };
  /** null when compatible, else what the index was built with. */
  const checkMeta = async (): Promise<Built | null> => {
    const m = await readMeta();
    const name = m.get("embedder_name");
    if (name === undefined) return null;
    const dimension = Number(m.get("embedder_dimension"));
    return name === embedder.name && dimension === embedder.dimension ? null : { name, dimension };
  };
  const chunksDimension = async () => vectorDimension(await tables.chunks.schema());

  let mismatch: string | null = null;
  let reindexing = false;
  const built = await checkMeta();
  const dimOk = (await chunksDimension()) === embedder.dimension;
  if (built || !dimOk) {
    if ((await tables.chunks.countRows()) === 0 && (await tables.documents.countRows()) === 0) {
      // Nothing stored yet: adopt the configured embedder instead of refusing.
      if (!dimOk) await tables.recreateChunks(embedder.dimension);
      await writeMeta();
    } else {
      const message = mismatchMessage(uri, built ?? { name: "unknown", dimension: await chunksDimension() }, embedder);
      if (!allowMismatch) throw new AppError("embedder_mismatch", message);
      mismatch = message;
    }
  } else if ((await readMeta()).size === 0) {
    await writeMeta();
  }

  // Another process (the CLI) may reindex with another embedder while this one runs: re-check the meta
  // table whenever its version moves, so a stale process errors instead of returning wrong results.
  let metaVersion = await meta.version();
  return {
    get mismatch() {
      return mismatch;
    },
    get reindexing() {
      return reindexing;
    },
    async assertCompatible() {
      if (mismatch || reindexing) return; // reindex mode: the caller knows
      const v = await readVersion(meta);
      if (v === metaVersion) return;
      const b = await checkMeta();
      if (b) throw new AppError("embedder_mismatch", mismatchMessage(uri, b, embedder));
      metaVersion = v;
    },
    async beginReindex() {
      reindexing = true;
      await writeMeta(REINDEX_IN_PROGRESS);
    },
    async commit() {
      await writeMeta();
      mismatch = null;
      reindexing = false;
      metaVersion = await meta.version();
    },
  };
}
