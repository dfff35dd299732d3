/**
 * Accounts in four side tables of the document store (so every replica sees the same people): users, their
 * sessions and pending invites — session and invite secrets kept only as SHA-256 hashes — and the owner of each
 * token, OAuth grant and conversation a user made (things without an owner row belong to the admin secret).
 */
import { randomBytes } from "node:crypto";
import { Bool, Field, Schema } from "apache-arrow";
import { setFlag } from "@/lib/credentials/set-flag";
import { hashTokenSecret } from "@/lib/credentials/tokens";
import { atMostEvery, openSideTables, perStore, type Store, serialQueue, versionCached } from "@/lib/store";
import { textField } from "@/lib/store/schema";
import { sqlEq, sqlString } from "@/lib/store/sql";
import type { SideTable } from "@/lib/store/tables";
import { AppError } from "@/lib/types";
import type { Identity, Invite, OwnedKind, Session, User } from "./types";

const usersSchema = new Schema([
  textField("id"),
  textField("email"),
  textField("name"),
  textField("role"),
  textField("kbs"),
  textField("password_hash", true),
  textField("origin"),
  textField("created_at"),
]);
const sessionsSchema = new Schema([
  textField("hash"),
  textField("user_id"),
  textField("csrf"),
  textField("created_at"),
  textField("expires_at"),
]);
const invitesSchema = new Schema([
  textField("hash"),
  textField("email", true),
  textField("role"),
  textField("kbs"),
  textField("created_by"),
  textField("created_at"),
  textField("expires_at"),
  new Field("used", new Bool(), false),
]);
const ownersSchema = new Schema([textField("kind"), textField("id"), textField("user_id")]);
/** A provider identity (issuer + subject) linked to an account, and the role its groups gave at the last sign-in. */
const identitiesSchema = new Schema([
  textField("issuer"),
  textField("subject"),
  textField("user_id"),
  textField("group_role", true),
  textField("created_at"),
]);

export const newUserId = (): string => `usr_${randomBytes(8).toString("hex")}`;

function rowToUser(r: Record<string, unknown>): User {
  return {
    id: String(r.id),
    email: String(r.email),
    name: String(r.name),
    role: String(r.role) as User["role"],
    kbs: JSON.parse(String(r.kbs)) as string[],
    passwordHash: r.password_hash == null ? null : String(r.password_hash),
    origin: String(r.origin),
    createdAt: String(r.created_at),
  };
}
const userToRow = (u: User) => ({
  id: u.id,
  email: u.email,
  name: u.name,
  role: u.role,
  kbs: JSON.stringify(u.kbs),
  password_hash: u.passwordHash,
  origin: u.origin,
  created_at: u.createdAt,
});
const rowToSession = (r: Record<string, unknown>): Session => ({
  hash: String(r.hash),
  userId: String(r.user_id),
  csrf: String(r.csrf),
  createdAt: String(r.created_at),
  expiresAt: String(r.expires_at),
});
const rowToInvite = (r: Record<string, unknown>): Invite => ({
  hash: String(r.hash),
  email: r.email == null ? null : String(r.email),
  role: String(r.role) as Invite["role"],
  kbs: JSON.parse(String(r.kbs)) as string[],
  createdBy: String(r.created_by),
  createdAt: String(r.created_at),
  expiresAt: String(r.expires_at),
  used: Boolean(r.used),
});

const rowToIdentity = (r: Record<string, unknown>): Identity => ({
  issuer: String(r.issuer),
  subject: String(r.subject),
  userId: String(r.user_id),
  groupRole: r.group_role == null ? null : (String(r.group_role) as Identity["groupRole"]),
  createdAt: String(r.created_at),
});

interface UserPatch {
  name?: string;
  origin?: string;
  role?: User["role"];
  kbs?: string[];
  passwordHash?: string;
}

export interface AccountStore {
  /** Every user by id (cached per table version: every signed-in request asks). */
  users(): Promise<ReadonlyMap<string, User>>;
  findByEmail(email: string): Promise<User | null>;
  /** Adds a user; 409 when the address already has an account. */
  addUser(user: User): Promise<void>;
  updateUser(id: string, patch: UserPatch): Promise<User>;
  /** Removes the user and their sessions; what they owned stays, owned by nobody who exists (tokens and grants stop working). */
  deleteUser(id: string): Promise<boolean>;
  addSession(session: Omit<Session, "hash">, plain: string): Promise<void>;
  /** The live session with this cookie value, or null. */
  findSession(plain: string, now?: Date): Promise<Session | null>;
  deleteSession(plain: string): Promise<void>;
  /** Ends every session of a user but the one with hash `keep` (a password change keeps the changer's own). */
  deleteSessions(userId: string, keep?: string): Promise<void>;
  addInvite(invite: Omit<Invite, "hash" | "used">, plain: string): Promise<void>;
  /** The unused, unexpired invite with this secret, or null. */
  findInvite(plain: string, now?: Date): Promise<Invite | null>;
  /** Marks an invite used; false when it already was (single use). */
  consumeInvite(hash: string): Promise<boolean>;
  listInvites(): Promise<Invite[]>;
  /** Withdraws a pending invite; false when there was none (used, expired or unknown). */
  cancelInvite(hash: string): Promise<boolean>;
  findIdentity(issuer: string, subject: string): Promise<Identity | null>;
  /** The provider identities linked to an account. */
  identitiesOf(userId: string): Promise<Identity[]>;
  /** Links a provider identity to an account, or records the role its groups gave this time. */
  saveIdentity(identity: Identity): Promise<void>;
  /** Unlinks every provider identity of an account (its address's verified owner claimed it). */
  unlinkIdentities(userId: string): Promise<void>;
  /** Ties `id` to the user who made it; 409 when it already has an owner. */
  setOwner(kind: OwnedKind, id: string, userId: string): Promise<void>;
  /** Owner user ids by subject id, for one kind (cached per table version). */
  owners(kind: OwnedKind): Promise<ReadonlyMap<string, string>>;
  /** A deleted knowledge base leaves every user's and invite's grants. */
  removeKb(kb: string): Promise<void>;
  renameKb(from: string, to: string): Promise<void>;
}

const PURGE_EVERY_MS = 3600_000;

const ACCOUNT_TABLES = {
  users: { name: "users", schema: usersSchema },
  sessions: { name: "sessions", schema: sessionsSchema },
  invites: { name: "invites", schema: invitesSchema },
  owners: { name: "owners", schema: ownersSchema },
  identities: { name: "sso_identities", schema: identitiesSchema },
};

async function openAccountStore(store: Store): Promise<AccountStore> {
  const { users, sessions, invites, owners, identities } = await openSideTables(store, ACCOUNT_TABLES);
  const serialized = serialQueue();

  const allUsers = versionCached(users, async () => {
    const rows = (await users.table.query().toArray()).map(rowToUser);
    return new Map(rows.map((u) => [u.id, u]));
  });
  const liveSessions = versionCached(sessions, async () => {
    const rows = (await sessions.table.query().toArray()).map(rowToSession);
    return new Map(rows.map((s) => [s.hash, s]));
  });
  const ownerRows = versionCached(owners, async () => {
    const byKind = new Map<string, Map<string, string>>();
    for (const r of await owners.table.query().toArray()) {
      const kind = String(r.kind);
      if (!byKind.has(kind)) byKind.set(kind, new Map());
      byKind.get(kind)!.set(String(r.id), String(r.user_id));
    }
    return byKind;
  });

  const purge = atMostEvery(PURGE_EVERY_MS, async (now) => {
    await sessions.write((t) => t.delete(`expires_at < '${now.toISOString()}'`));
  });
  /** Adds a row keyed by the hash of its secret: the secret itself is never stored. */
  const addHashed = (side: SideTable, plain: string, row: Record<string, unknown>) =>
    side.write((t) => t.add([{ hash: hashTokenSecret(plain), ...row }]));

  const editGrants = (edit: (kbs: string[]) => string[] | null) =>
    serialized(async () => {
      for (const u of (await users.table.query().toArray()).map(rowToUser)) {
        const kbs = edit(u.kbs);
        if (kbs) await users.write((t) => t.update({ where: sqlEq("id", u.id), values: { kbs: JSON.stringify(kbs) } }));
      }
      for (const i of (await invites.table.query().where("used = false").toArray()).map(rowToInvite)) {
        const kbs = edit(i.kbs);
        if (kbs) await invites.write((t) => t.update({ where: sqlEq("hash", i.hash), values: { kbs: JSON.stringify(kbs) } }));
      }
    });

  return {
    users: allUsers,
    async findByEmail(email) {
      const wanted = email.trim().toLowerCase();
      for (const u of (await allUsers()).values()) if (u.email === wanted) return u;
      return null;
    },
    addUser(user) {
      return serialized(async () => {
        if ((await users.table.countRows(sqlEq("email", user.email))) > 0) {
          throw new AppError("conflict", `There is already an account for ${user.email}.`);
        }
        await users.write((t) => t.add([userToRow(user)]));
      });
    },
    updateUser(id, patch) {
      return serialized(async () => {
        const rows = await users.table.query().where(sqlEq("id", id)).limit(1).toArray();
        if (!rows.length) throw new AppError("not_found", "There is no such user.");
        const next: User = { ...rowToUser(rows[0]), ...patch };
        const values: Record<string, string> = {};
        if (patch.name !== undefined) values.name = next.name;
        if (patch.origin !== undefined) values.origin = next.origin;
        if (patch.role !== undefined) values.role = next.role;
        if (patch.kbs !== undefined) values.kbs = JSON.stringify(next.kbs);
        if (patch.passwordHash !== undefined) values.password_hash = patch.passwordHash;
        if (Object.keys(values).length) await users.write((t) => t.update({ where: sqlEq("id", id), values }));
        return next;
      });
    },
    deleteUser(id) {
      return serialized(async () => {
        if ((await users.table.countRows(sqlEq("id", id))) === 0) return false;
        await users.write((t) => t.delete(sqlEq("id", id)));
        await sessions.write((t) => t.delete(sqlEq("user_id", id)));
        await identities.write((t) => t.delete(sqlEq("user_id", id)));
        return true;
      });
    },
    addSession(session, plain) {
      return serialized(async () => {
        await addHashed(sessions, plain, {
          user_id: session.userId,
          csrf: session.csrf,
          created_at: session.createdAt,
          expires_at: session.expiresAt,
        });
        await purge(new Date()).catch((err) => console.error("[accounts] could not purge expired sessions:", err));
      });
    },
    async findSession(plain, now = new Date()) {
      const found = (await liveSessions()).get(hashTokenSecret(plain));
      return found && found.expiresAt > now.toISOString() ? found : null;
    },
    deleteSession(plain) {
      return serialized(async () => {
        await sessions.write((t) => t.delete(sqlEq("hash", hashTokenSecret(plain))));
      });
    },
    deleteSessions(userId, keep) {
      return serialized(async () => {
        const where = keep ? `${sqlEq("user_id", userId)} AND hash <> ${sqlString(keep)}` : sqlEq("user_id", userId);
        await sessions.write((t) => t.delete(where));
      });
    },
    addInvite(invite, plain) {
      return serialized(async () => {
        await addHashed(invites, plain, {
          email: invite.email,
          role: invite.role,
          kbs: JSON.stringify(invite.kbs),
          created_by: invite.createdBy,
          created_at: invite.createdAt,
          expires_at: invite.expiresAt,
          used: false,
        });
      });
    },
    async findInvite(plain, now = new Date()) {
      const rows = await invites.table
        .query()
        .where(sqlEq("hash", hashTokenSecret(plain)))
        .limit(1)
        .toArray();
      const invite = rows.length ? rowToInvite(rows[0]) : null;
      return invite && !invite.used && invite.expiresAt > now.toISOString() ? invite : null;
    },
    consumeInvite(hash) {
      return serialized(() => setFlag(invites, sqlEq("hash", hash), "used"));
    },
    async listInvites() {
      const rows = (await invites.table.query().toArray()).map(rowToInvite);
      return rows.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    },
    cancelInvite(hash) {
      return serialized(async () => {
        const rows = (await invites.table.query().where(sqlEq("hash", hash)).limit(1).toArray()).map(rowToInvite);
        if (!rows.length || rows[0].used || rows[0].expiresAt <= new Date().toISOString()) return false;
        return setFlag(invites, sqlEq("hash", hash), "used");
      });
    },
    async findIdentity(issuer, subject) {
      const rows = await identities.table
        .query()
        .where(`${sqlEq("issuer", issuer)} AND ${sqlEq("subject", subject)}`)
        .limit(1)
        .toArray();
      return rows.length ? rowToIdentity(rows[0]) : null;
    },
    async identitiesOf(userId) {
      return (await identities.table.query().where(sqlEq("user_id", userId)).toArray()).map(rowToIdentity);
    },
    saveIdentity(i) {
      return serialized(async () => {
        const where = `${sqlEq("issuer", i.issuer)} AND ${sqlEq("subject", i.subject)}`;
        await identities.write((t) => t.delete(where));
        const row = { issuer: i.issuer, subject: i.subject, user_id: i.userId, group_role: i.groupRole, created_at: i.createdAt };
        await identities.write((t) => t.add([row]));
      });
    },
    unlinkIdentities(userId) {
      return serialized(async () => {
        await identities.write((t) => t.delete(sqlEq("user_id", userId)));
      });
    },
    setOwner(kind, id, userId) {
      return serialized(async () => {
        // An owner is set once: nobody can claim what another made.
        if ((await owners.table.countRows(`${sqlEq("kind", kind)} AND ${sqlEq("id", id)}`)) > 0) {
          throw new AppError("conflict", "That already belongs to someone.");
        }
        await owners.write((t) => t.add([{ kind, id, user_id: userId }]));
      });
    },
    async owners(kind) {
      return (await ownerRows()).get(kind) ?? new Map();
    },
    removeKb(kb) {
      return editGrants((kbs) => (kbs.includes(kb) ? kbs.filter((k) => k !== kb) : null));
    },
    renameKb(from, to) {
      return editGrants((kbs) => (kbs.includes(from) ? [...new Set(kbs.map((k) => (k === from ? to : k)))].sort() : null));
    },
  };
}

/** The process-wide account store in the side tables of `store`. */
export const getAccountStore: (store: Store) => Promise<AccountStore> = perStore("account-stores", openAccountStore);
