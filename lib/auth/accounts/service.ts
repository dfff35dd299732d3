/**
 * What people do with accounts: sign in, invite, join, change a role or grants, leave. Routes and the OIDC
 * callback call these; every rule about accounts is here, once.
 */
import { randomBytes } from "node:crypto";
import type { Role } from "@/lib/auth/roles";
import { publicBaseUrl } from "@/lib/config";
import { AppError } from "@/lib/types";
import { checkPassword, hashPassword } from "./passwords";
import { startSession } from "./sessions";
import { type AccountStore, newUserId } from "./store";
import { type Invite, isUnverifiedSso, type PublicUser, publicUser, type Session, type User } from "./types";

export interface Grants {
  role: Role;
  kbs: string[];
}

/** Only grants of knowledge bases that exist; an admin's list is kept empty (an admin has them all). */
function normalizeGrants(g: Grants, known: readonly string[]): Grants {
  if (g.role === "admin") return { role: "admin", kbs: [] };
  const unknown = g.kbs.filter((k) => !known.includes(k));
  if (unknown.length) throw new AppError("bad_request", `There is no knowledge base named "${unknown[0]}".`);
  return { role: g.role, kbs: [...new Set(g.kbs)].sort() };
}

/** The user with this e-mail and password and a new session cookie; null when either is wrong. */
export async function signIn(
  accounts: AccountStore,
  email: string,
  password: string,
  sessionHours: number | undefined,
): Promise<{ user: User; cookies: string[] } | null> {
  const user = await accounts.findByEmail(email);
  if (!(await checkPassword(user?.passwordHash ?? null, password)) || !user) return null;
  return { user, cookies: await startSession(accounts, user, sessionHours) };
}

/** A single-use invite link, valid `hours`. */
export async function invite(
  accounts: AccountStore,
  input: Grants & { email?: string | null },
  by: string,
  known: readonly string[],
  hours = 72,
): Promise<{ link: string; expiresAt: string }> {
  const grants = normalizeGrants(input, known);
  const email = input.email?.trim().toLowerCase() || null;
  // An account single sign-on made from this address unverified does not stand in the way: the invitee claims it.
  const existing = email ? await accounts.findByEmail(email) : null;
  if (existing && !isUnverifiedSso(existing)) throw new AppError("conflict", `There is already an account for ${email}.`);
  const plain = `kbi_${randomBytes(24).toString("base64url")}`;
  const now = new Date();
  const expiresAt = new Date(now.getTime() + hours * 3600_000).toISOString();
  await accounts.addInvite({ email, ...grants, createdBy: by, createdAt: now.toISOString(), expiresAt }, plain);
  // In the fragment: never sent to a server, so it stays out of logs and Referer headers.
  return { link: `${publicBaseUrl()}/invite#${plain}`, expiresAt };
}

/** Who an invite is for, without using it (the join page shows it). */
export async function describeInvite(accounts: AccountStore, plain: string): Promise<Pick<Invite, "email" | "role" | "kbs" | "expiresAt">> {
  const found = await accounts.findInvite(plain);
  if (!found) throw new AppError("not_found", "This invite link is invalid, used or expired. Ask your admin for a new one.");
  return { email: found.email, role: found.role, kbs: found.kbs, expiresAt: found.expiresAt };
}

/**
 * Uses an invite: a new account with the invite's grants, signed in. An invite bound to an address that an
 * account single sign-on made unverified claims that account: `release` first ends everything its maker had
 * (./sso.ts releaseUnverified), then the account takes the invite's grants and password.
 */
export async function acceptInvite(
  accounts: AccountStore,
  input: { invite: string; email: string; name: string; password: string },
  sessionHours: number | undefined,
  release?: (userId: string) => Promise<string[]>,
): Promise<{ user: User; cookies: string[]; claimed: { subjects: string[] } | null }> {
  const found = await accounts.findInvite(input.invite);
  if (!found) throw new AppError("not_found", "This invite link is invalid, used or expired. Ask your admin for a new one.");
  const email = input.email.trim().toLowerCase();
  if (found.email && found.email !== email) throw new AppError("bad_request", `This invite is for ${found.email}.`);
  const existing = await accounts.findByEmail(email);
  // Only an invite an admin bound to this address vouches for it; an unbound one claims nothing.
  const claimable = existing !== null && found.email === email && isUnverifiedSso(existing) && release !== undefined;
  // An e-mail that has an account uses the invite up and gets the answer of a used one: an invite must not
  // become a way to learn who has an account here.
  if (!(await accounts.consumeInvite(found.hash)) || (existing && !claimable)) {
    throw new AppError("not_found", "This invite link is invalid, used or expired. Ask your admin for a new one.");
  }
  const fields = {
    name: input.name.trim() || email,
    role: found.role,
    kbs: found.kbs,
    passwordHash: await hashPassword(input.password),
    // An address the person typed themselves is unverified: single sign-on never merges into it.
    origin: found.email ? "local" : "invite",
  };
  let user: User;
  let claimed: { subjects: string[] } | null = null;
  if (existing && claimable) {
    claimed = { subjects: await release(existing.id) };
    user = await accounts.updateUser(existing.id, fields);
  } else {
    user = { id: newUserId(), email, ...fields, createdAt: new Date().toISOString() };
    await accounts.addUser(user);
  }
  return { user, cookies: await startSession(accounts, user, sessionHours), claimed };
}

/** The first admin, made with the admin secret (the bootstrap; the secret stays the recovery path). */
export async function createUser(
  accounts: AccountStore,
  input: Grants & { email: string; name: string; password: string },
  known: readonly string[],
): Promise<PublicUser> {
  const grants = normalizeGrants(input, known);
  const user: User = {
    id: newUserId(),
    email: input.email.trim().toLowerCase(),
    name: input.name.trim() || input.email,
    ...grants,
    passwordHash: await hashPassword(input.password),
    origin: "local",
    createdAt: new Date().toISOString(),
  };
  await accounts.addUser(user);
  return publicUser(user);
}

/** Changes a user's role or grants (effective on their next request). The admin secret stays an admin whatever happens here. */
export async function updateUser(
  accounts: AccountStore,
  id: string,
  patch: Partial<Grants> & { name?: string; password?: string },
  known: readonly string[],
): Promise<PublicUser> {
  const current = (await accounts.users()).get(id);
  if (!current) throw new AppError("not_found", "There is no such user.");
  const grants = normalizeGrants({ role: patch.role ?? current.role, kbs: patch.kbs ?? current.kbs }, known);
  const updated = await accounts.updateUser(id, {
    ...grants,
    ...(patch.name !== undefined ? { name: patch.name.trim() || current.email } : {}),
    ...(patch.password !== undefined ? { passwordHash: await hashPassword(patch.password) } : {}),
  });
  // A reset password is for someone who lost it, or whose account was used by another: every session ends.
  if (patch.password !== undefined) await accounts.deleteSessions(id);
  return publicUser(updated);
}

/**
 * A signed-in person changes their own password (the current one first); every other session of theirs ends,
 * the one they are using stays.
 */
export async function changePassword(
  accounts: AccountStore,
  signedIn: { user: User; session: Session },
  current: string,
  next: string,
): Promise<void> {
  const { user, session } = signedIn;
  if (!user.passwordHash) throw new AppError("bad_request", "This account signs in through single sign-on and has no password here.");
  if (!(await checkPassword(user.passwordHash, current))) throw new AppError("forbidden", "The current password is wrong.");
  await accounts.updateUser(user.id, { passwordHash: await hashPassword(next) });
  await accounts.deleteSessions(user.id, session.hash);
}

/** Removes an account: its sessions end, its tokens and OAuth grants stop working, its conversations are kept but unreachable. */
export async function deleteUser(accounts: AccountStore, id: string): Promise<void> {
  const current = (await accounts.users()).get(id);
  if (!current) throw new AppError("not_found", "There is no such user.");
  await accounts.deleteUser(id);
}

/** Withdraws a pending invite: its link stops working. Returns it for the audit log. */
export async function cancelInvite(accounts: AccountStore, id: string): Promise<Invite> {
  const found = (await accounts.listInvites()).find((i) => i.hash === id);
  if (!found || !(await accounts.cancelInvite(id))) throw new AppError("not_found", "There is no such pending invite.");
  return found;
}

export async function listPeople(accounts: AccountStore, now = new Date()) {
  const users = [...(await accounts.users()).values()].map(publicUser).sort((a, b) => a.email.localeCompare(b.email));
  const invites = (await accounts.listInvites())
    .filter((i) => !i.used && i.expiresAt > now.toISOString())
    // The id is the hash of the invite's secret: it names the invite (to cancel it) and cannot be used to join.
    .map(({ hash, email, role, kbs, createdBy, createdAt, expiresAt }) => ({
      id: hash,
      email,
      role,
      kbs,
      createdBy,
      createdAt,
      expiresAt,
    }));
  return { users, invites };
}
