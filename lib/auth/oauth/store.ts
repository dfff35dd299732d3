/**
 * OAuth state in four side tables of the document store (like the registry's tokens, so every replica sees
 * the same data): registered clients, grants (what the admin allowed one client: endpoint, knowledge bases,
 * read or read-write), the grant's secrets — authorization codes, access and refresh tokens — kept only as
 * SHA-256 hashes, and the redirect URIs each client has proven (a code sent there was exchanged).
 */
import { randomBytes } from "node:crypto";
import { Bool, Field, Schema } from "apache-arrow";
import { z } from "zod";
import { credentialFromRow, credentialToRow, lastUseRecorder } from "@/lib/credentials/credential-rows";
import { setFlag } from "@/lib/credentials/set-flag";
import { hashTokenSecret } from "@/lib/credentials/tokens";
import { atMostEvery, openSideTables, perStore, type Store, serialQueue, versionCached } from "@/lib/store";
import { textField } from "@/lib/store/schema";
import { sqlEq } from "@/lib/store/sql";
import type { GrantScope, OAuthGrant } from "./types";

const clientsSchema = new Schema([textField("client_id"), textField("metadata"), textField("secret_hash", true), textField("created_at")]);
const grantsSchema = new Schema([
  textField("id"),
  textField("client_id"),
  textField("client_name"),
  textField("resource"),
  textField("kbs"),
  textField("scope"),
  textField("created_at"),
  textField("last_used_at", true),
  new Field("revoked", new Bool(), false),
]);
const secretsSchema = new Schema([
  textField("hash"),
  textField("kind"),
  textField("grant_id"),
  textField("expires_at"),
  new Field("used", new Bool(), false),
  textField("data", true),
]);

const redirectsSchema = new Schema([textField("client_id"), textField("redirect_uri"), textField("created_at")]);

type SecretKind = "code" | "access" | "refresh";

/** A grant's id: made here, and the only shape the grants API takes. */
export const grantIdSchema = z.string().regex(/^oag_[a-f0-9]{16}$/);
export const newGrantId = (): string => `oag_${randomBytes(8).toString("hex")}`;

interface StoredClient {
  clientId: string;
  /** The registration (RFC 7591 client information) as JSON. */
  metadata: string;
  secretHash: string | null;
  createdAt: string;
}

interface StoredSecret {
  hash: string;
  kind: SecretKind;
  grantId: string;
  expiresAt: string;
  used: boolean;
  /** A code's PKCE challenge, redirect URI and client. */
  data: string | null;
}

export interface OAuthStore {
  /**
   * Adds a registration unless `maxClients` are kept (then after purging, see purgeClients): false when
   * still full. Counting and adding are one step of this process's queue, so concurrent registrations never
   * pass the cap.
   */
  addClient(client: StoredClient, maxClients: number, now?: Date): Promise<boolean>;
  getClient(clientId: string): Promise<StoredClient | null>;
  countClients(): Promise<number>;
  /**
   * Deletes registrations no grant ever came of after an hour, and those whose grants have not been used
   * for 60 days (revoking those grants); returns how many went. Registration asks at most hourly, and when full.
   */
  purgeClients(now: Date): Promise<number>;
  addGrant(grant: OAuthGrant): Promise<void>;
  getGrant(id: string): Promise<OAuthGrant | null>;
  listGrants(): Promise<OAuthGrant[]>;
  /** Revokes the grant: none of its tokens is accepted any more. False when there was no live grant. */
  revokeGrant(id: string): Promise<boolean>;
  /** Records a use; written at most once a minute per grant. */
  touchGrant(id: string, now?: Date): Promise<void>;
  /** Grants that chose `from` follow a rename to `to` (a grant bound to /api/mcp/<from> keeps that URL, where `from` then is refused). */
  renameKb(from: string, to: string): Promise<void>;
  /**
   * A deleted knowledge base leaves every grant; a grant left with none is revoked. A knowledge base made
   * later under the same name is not reachable with an old grant.
   */
  removeKb(kb: string): Promise<void>;
  addSecret(secret: Omit<StoredSecret, "hash" | "used">, plain: string): Promise<void>;
  /** The stored secret with this plain value (read fresh), or null. */
  findSecret(plain: string, kind: SecretKind): Promise<StoredSecret | null>;
  /** Marks a code or refresh token used; false when it already was (a replay). */
  consume(hash: string): Promise<boolean>;
  /** Records that a code sent to this redirect URI was exchanged by the client: an error may be sent there. */
  proveRedirect(clientId: string, redirectUri: string, now?: Date): Promise<void>;
  /** The redirect URIs the client has proven. */
  provenRedirects(clientId: string): Promise<string[]>;
  /**
   * The live grant of a live access token (cached per table version: every MCP request asks); otherwise
   * whether the token was never issued ("unknown": a guess) or has expired or been revoked ("stale").
   */
  authenticate(plain: string, now?: Date): Promise<OAuthGrant | "unknown" | "stale">;
}

function rowToGrant(r: Record<string, unknown>): OAuthGrant {
  return {
    ...credentialFromRow(r),
    clientId: String(r.client_id),
    clientName: String(r.client_name),
    resource: String(r.resource),
    kbs: JSON.parse(String(r.kbs)) as string[],
    scope: String(r.scope) as GrantScope,
  };
}
function grantToRow(g: OAuthGrant) {
  return {
    ...credentialToRow(g),
    client_id: g.clientId,
    client_name: g.clientName,
    resource: g.resource,
    kbs: JSON.stringify(g.kbs),
    scope: g.scope,
  };
}
function rowToSecret(r: Record<string, unknown>): StoredSecret {
  return {
    hash: String(r.hash),
    kind: String(r.kind) as SecretKind,
    grantId: String(r.grant_id),
    expiresAt: String(r.expires_at),
    used: Boolean(r.used),
    data: r.data == null ? null : String(r.data),
  };
}

/** Expired secrets are deleted a day after they expire (a replayed code or refresh token is still recognised until then). */
const PURGE_AFTER_MS = 24 * 3600_000;
const PURGE_EVERY_MS = 3600_000;
/** A registration no consent came of within an hour is someone's abandoned attempt, or filler. */
const UNUSED_CLIENT_MS = 3600_000;
/** Twice the refresh token's life: none of the client's tokens can still work. */
const STALE_CLIENT_MS = 60 * 24 * 3600_000;

const OAUTH_TABLES = {
  clients: { name: "oauth_clients", schema: clientsSchema },
  grants: { name: "oauth_grants", schema: grantsSchema },
  secrets: { name: "oauth_secrets", schema: secretsSchema },
  redirects: { name: "oauth_redirects", schema: redirectsSchema },
};

async function openOAuthStore(store: Store): Promise<OAuthStore> {
  const { clients, grants, secrets, redirects } = await openSideTables(store, OAUTH_TABLES);
  const serialized = serialQueue();

  const liveGrants = versionCached(grants, async () => {
    const rows = await grants.table.query().where("revoked = false").toArray();
    return new Map(rows.map(rowToGrant).map((g) => [g.id, g]));
  });
  const accessTokens = versionCached(secrets, async () => {
    const rows = await secrets.table
      .query()
      .where(`${sqlEq("kind", "access")} AND used = false`)
      .toArray();
    return new Map(rows.map(rowToSecret).map((s) => [s.hash, s]));
  });

  const purge = atMostEvery(PURGE_EVERY_MS, async (now) => {
    const before = new Date(now.getTime() - PURGE_AFTER_MS).toISOString();
    await secrets.write((t) => t.delete(`expires_at < '${before}'`));
  });

  /** Rewrites the knowledge-base list of every live grant `edit` changes (null: unchanged); an empty list revokes. */
  const editKbs = (edit: (kbs: string[]) => string[] | null) =>
    serialized(async () => {
      const rows = (await grants.table.query().where("revoked = false").toArray()).map(rowToGrant);
      for (const g of rows) {
        const kbs = edit(g.kbs);
        if (!kbs) continue;
        const values: Record<string, string | boolean> = kbs.length ? { kbs: JSON.stringify(kbs) } : { revoked: true };
        await grants.write((t) => t.update({ where: sqlEq("id", g.id), values }));
      }
    });

  const inList = (column: string, values: string[]) => values.map((v) => sqlEq(column, v)).join(" OR ");
  /** purgeClients, for a caller already in the queue. */
  const purgeClientsNow = async (now: Date) => {
    const unusedBefore = new Date(now.getTime() - UNUSED_CLIENT_MS).toISOString();
    const staleBefore = new Date(now.getTime() - STALE_CLIENT_MS).toISOString();
    const lastUse = new Map<string, string>();
    for (const g of (await grants.table.query().toArray()).map(rowToGrant)) {
      const at = g.lastUsedAt ?? g.createdAt;
      if ((lastUse.get(g.clientId) ?? "") < at) lastUse.set(g.clientId, at);
    }
    const gone: string[] = [];
    for (const r of await clients.table.query().select(["client_id", "created_at"]).toArray()) {
      const id = String(r.client_id);
      const used = lastUse.get(id);
      if (used === undefined ? String(r.created_at) < unusedBefore : used < staleBefore) gone.push(id);
    }
    for (let i = 0; i < gone.length; i += 100) {
      const batch = gone.slice(i, i + 100);
      const stale = batch.filter((id) => lastUse.has(id));
      if (stale.length) await grants.write((t) => t.update({ where: inList("client_id", stale), values: { revoked: true } }));
      await clients.write((t) => t.delete(inList("client_id", batch)));
      await redirects.write((t) => t.delete(inList("client_id", batch)));
    }
    return gone.length;
  };
  const purgeClients = (now: Date) => serialized(() => purgeClientsNow(now));
  const purgeClientsHourly = atMostEvery(PURGE_EVERY_MS, async (now) => {
    await purgeClients(now);
  });

  return {
    async addClient(client, maxClients, now = new Date()) {
      await purgeClientsHourly(now).catch((err) => console.error("[oauth] could not purge unused clients:", err));
      return serialized(async () => {
        const full = async () => (await clients.table.countRows()) >= maxClients;
        if ((await full()) && ((await purgeClientsNow(now)) === 0 || (await full()))) return false;
        const row = { client_id: client.clientId, metadata: client.metadata, secret_hash: client.secretHash, created_at: client.createdAt };
        await clients.write((t) => t.add([row]));
        return true;
      });
    },
    countClients() {
      return clients.table.countRows();
    },
    purgeClients,
    async getClient(clientId) {
      const rows = await clients.table.query().where(sqlEq("client_id", clientId)).limit(1).toArray();
      if (!rows.length) return null;
      const r = rows[0];
      return {
        clientId: String(r.client_id),
        metadata: String(r.metadata),
        secretHash: r.secret_hash == null ? null : String(r.secret_hash),
        createdAt: String(r.created_at),
      };
    },
    addGrant(grant) {
      return serialized(async () => {
        await grants.write((t) => t.add([grantToRow(grant)]));
      });
    },
    async getGrant(id) {
      const rows = await grants.table.query().where(sqlEq("id", id)).limit(1).toArray();
      return rows.length ? rowToGrant(rows[0]) : null;
    },
    async listGrants() {
      const rows = await grants.table.query().toArray();
      return rows.map(rowToGrant).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    },
    revokeGrant(id) {
      return serialized(() => setFlag(grants, sqlEq("id", id), "revoked"));
    },
    touchGrant: lastUseRecorder(grants, serialized),
    renameKb(from, to) {
      return editKbs((kbs) => (kbs.includes(from) ? [...new Set(kbs.map((k) => (k === from ? to : k)))].sort() : null));
    },
    removeKb(kb) {
      return editKbs((kbs) => (kbs.includes(kb) ? kbs.filter((k) => k !== kb) : null));
    },
    addSecret(secret, plain) {
      return serialized(async () => {
        const row = {
          hash: hashTokenSecret(plain),
          kind: secret.kind,
          grant_id: secret.grantId,
          expires_at: secret.expiresAt,
          used: false,
          data: secret.data,
        };
        await secrets.write((t) => t.add([row]));
        await purge(new Date()).catch((err) => console.error("[oauth] could not purge expired secrets:", err));
      });
    },
    async findSecret(plain, kind) {
      const where = `${sqlEq("hash", hashTokenSecret(plain))} AND ${sqlEq("kind", kind)}`;
      const rows = await secrets.table.query().where(where).limit(1).toArray();
      return rows.length ? rowToSecret(rows[0]) : null;
    },
    consume(hash) {
      return serialized(() => setFlag(secrets, sqlEq("hash", hash), "used"));
    },
    proveRedirect(clientId, redirectUri, now = new Date()) {
      return serialized(async () => {
        const where = `${sqlEq("client_id", clientId)} AND ${sqlEq("redirect_uri", redirectUri)}`;
        if ((await redirects.table.countRows(where)) > 0) return;
        await redirects.write((t) => t.add([{ client_id: clientId, redirect_uri: redirectUri, created_at: now.toISOString() }]));
      });
    },
    async provenRedirects(clientId) {
      const rows = await redirects.table.query().where(sqlEq("client_id", clientId)).toArray();
      return rows.map((r) => String(r.redirect_uri));
    },
    async authenticate(plain, now = new Date()) {
      const found = (await accessTokens()).get(hashTokenSecret(plain));
      if (!found) return "unknown";
      if (found.expiresAt <= now.toISOString()) return "stale";
      return (await liveGrants()).get(found.grantId) ?? "stale";
    },
  };
}

/** The process-wide OAuth store in the side tables of `store`. */
export const getOAuthStore: (store: Store) => Promise<OAuthStore> = perStore("oauth-stores", openOAuthStore);
