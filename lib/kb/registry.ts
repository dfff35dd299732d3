/**
 * The registry of knowledge bases and access tokens: two small side tables of the document store (same
 * dataset, so an object-store deployment keeps working and every replica sees the same data).
 */
import { Bool, Field, Schema } from "apache-arrow";
import { credentialFromRow, credentialToRow, lastUseRecorder } from "@/lib/credentials/credential-rows";
import { setFlag } from "@/lib/credentials/set-flag";
import { type AccessToken, findToken, type TokenScope } from "@/lib/credentials/tokens";
import { openSideTables, type Store, serialQueue, versionCached } from "@/lib/store";
import { textField } from "@/lib/store/schema";
import { sqlEq } from "@/lib/store/sql";
import { addTextColumn } from "@/lib/store/tables";
import { keyedRows } from "@/lib/store/versioned";
import type { KbRecord } from "./types";

const kbsSchema = new Schema([
  textField("name"),
  textField("title"),
  textField("description"),
  textField("created_at"),
  textField("updated_at"),
  textField("instructions", true),
]);
const tokensSchema = new Schema([
  textField("id"),
  textField("name"),
  textField("hash"),
  textField("scope"),
  textField("kb", true),
  textField("created_at"),
  textField("last_used_at", true),
  new Field("revoked", new Bool(), false),
]);

function rowToKb(r: Record<string, unknown>): KbRecord {
  return {
    name: String(r.name),
    title: String(r.title ?? ""),
    description: String(r.description ?? ""),
    instructions: String(r.instructions ?? ""),
    createdAt: String(r.created_at),
    updatedAt: String(r.updated_at),
  };
}
function kbToRow(k: KbRecord) {
  return {
    name: k.name,
    title: k.title,
    description: k.description,
    created_at: k.createdAt,
    updated_at: k.updatedAt,
    instructions: k.instructions ?? "",
  };
}
function rowToToken(r: Record<string, unknown>): AccessToken {
  return {
    ...credentialFromRow(r),
    name: String(r.name),
    hash: String(r.hash),
    scope: String(r.scope) as TokenScope,
    kb: r.kb == null ? null : String(r.kb),
  };
}
function tokenToRow(t: AccessToken) {
  return { ...credentialToRow(t), name: t.name, hash: t.hash, scope: t.scope, kb: t.kb };
}

export interface Registry {
  readonly uri: string;
  listKbs(): Promise<KbRecord[]>;
  /** The knowledge-base table's version: it moves with every change to it, in any process. */
  kbsVersion(): Promise<number>;
  getKb(name: string): Promise<KbRecord | null>;
  /** Inserts or replaces by name. */
  putKb(kb: KbRecord): Promise<void>;
  deleteKb(name: string): Promise<void>;

  /** Every token, revoked ones included, oldest first. */
  listTokens(): Promise<AccessToken[]>;
  getToken(id: string): Promise<AccessToken | null>;
  addToken(token: AccessToken): Promise<void>;
  /** The live (not revoked) token with this secret, or null. */
  authenticate(secret: string): Promise<AccessToken | null>;
  /** Records a use; written at most once a minute per token. */
  touchToken(id: string, now?: Date): Promise<void>;
  revokeToken(id: string): Promise<boolean>;
  /** Tokens limited to `from` follow a rename to `to`. */
  moveTokens(from: string, to: string): Promise<void>;
  /** Tokens limited to `kb` are revoked when it is deleted. */
  revokeTokensOf(kb: string): Promise<void>;
}

const REGISTRY_TABLES = { kbs: { name: "kbs", schema: kbsSchema }, tokens: { name: "tokens", schema: tokensSchema } };

/** The registry in the side tables of `store`. */
export async function openRegistry(store: Store, opts: { defaultKb?: string } = {}): Promise<Registry> {
  const { kbs, tokens } = await openSideTables(store, REGISTRY_TABLES);

  const serialized = serialQueue();
  // A store made before custom instructions gets their column (empty).
  await addTextColumn(kbs, "instructions");

  // Every MCP request reads both tables (token check, tool catalog).
  const kbRows = keyedRows(kbs, serialized, { key: "name", keyOf: (k) => k.name, fromRow: rowToKb, toRow: kbToRow }, (a, b) =>
    a.name.localeCompare(b.name),
  );
  const liveTokens = versionCached(tokens, async () => (await tokens.table.query().where("revoked = false").toArray()).map(rowToToken));

  const registry: Registry = {
    uri: store.uri,
    async listKbs() {
      return [...(await kbRows.all())];
    },
    kbsVersion: () => kbs.version(),
    getKb: kbRows.get,
    putKb: kbRows.put,
    deleteKb: kbRows.remove,

    async listTokens() {
      const rows = await tokens.table.query().toArray();
      return rows.map(rowToToken).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    },
    async getToken(id) {
      const rows = await tokens.table.query().where(sqlEq("id", id)).limit(1).toArray();
      return rows.length ? rowToToken(rows[0]) : null;
    },
    addToken(token) {
      return serialized(async () => {
        await tokens.write((t) => t.add([tokenToRow(token)]));
      });
    },
    async authenticate(secret) {
      return findToken(await liveTokens(), secret);
    },
    touchToken: lastUseRecorder(tokens, serialized),
    revokeToken(id) {
      return serialized(() => setFlag(tokens, sqlEq("id", id), "revoked"));
    },
    moveTokens(from, to) {
      return serialized(async () => {
        if ((await tokens.table.countRows(sqlEq("kb", from))) === 0) return;
        await tokens.write((t) => t.update({ where: sqlEq("kb", from), values: { kb: to } }));
      });
    },
    revokeTokensOf(kb) {
      return serialized(async () => {
        await setFlag(tokens, sqlEq("kb", kb), "revoked");
      });
    },
  };

  if (opts.defaultKb && !(await registry.getKb(opts.defaultKb))) {
    const now = new Date().toISOString();
    // Insert only when missing: two processes starting together must not overwrite an edited description.
    const row = kbToRow({ name: opts.defaultKb, title: opts.defaultKb, description: "", createdAt: now, updatedAt: now });
    await serialized(() => kbs.write((t) => t.mergeInsert("name").whenNotMatchedInsertAll().execute([row])));
  }
  return registry;
}
