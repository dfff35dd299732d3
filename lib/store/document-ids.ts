/**
 * Document ids. The same knowledge base and file name give the same id in every process of a dataset, so a
 * re-ingest replaces the document in place and two replicas ingesting one file write one document; yet nobody
 * without the dataset can compute an id from a name it guessed: the id is an HMAC-SHA256 of the knowledge base
 * and file name under a random key kept in the meta table, made by the first write that needs one.
 *
 * Documents stored before there was a key keep their ids (sha256 of the same text, unkeyed): re-ingests find them
 * by knowledge base and file name (Store.matchDocument), and saved conversations and links name them.
 */
import { createHmac, randomBytes } from "node:crypto";
import type * as lancedb from "@lancedb/lancedb";
import { sqlEq } from "./sql";
import { retryConflicts } from "./tables";

const KEY_ROW = "document_id_key";

/** The id of file `source` in knowledge base `kb`. */
export type DocumentIdOf = (kb: string, source: string) => string;

/**
 * The dataset's key: the smallest of those stored, so two processes that made one at the same moment agree from
 * then on (what either named before it saw the other's key keeps its id: ids are only ever looked up, never
 * recomputed, except by a knowledge-base rename, which gives every document a new one).
 */
async function readKey(meta: lancedb.Table): Promise<string | null> {
  const rows = await meta.query().where(sqlEq("key", KEY_ROW)).toArray();
  const keys = rows.map((r) => String(r.value)).filter((v) => /^[0-9a-f]{64}$/.test(v));
  return keys.length ? keys.sort()[0] : null;
}

/** The dataset's id maker, read once (a key never changes once made); the key is made when there is none. */
export function documentIdMaker(meta: lancedb.Table): () => Promise<DocumentIdOf> {
  let made: Promise<DocumentIdOf> | undefined;
  const open = async (): Promise<DocumentIdOf> => {
    let key = await readKey(meta);
    if (key === null) {
      const row = { key: KEY_ROW, value: randomBytes(32).toString("hex") };
      await retryConflicts(() => meta.mergeInsert("key").whenNotMatchedInsertAll().execute([row]));
      key = (await readKey(meta))!;
    }
    const secret = Buffer.from(key, "hex");
    return (kb, source) => createHmac("sha256", secret).update(`${kb}\u0000${source}`).digest("hex").slice(0, 24);
  };
  return () => {
    made ??= open().catch((err: unknown) => {
      made = undefined; // a failed read or write is tried again by the next caller
      throw err;
    });
    return made;
  };
}
