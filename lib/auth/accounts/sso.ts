/**
 * Signing in through single sign-on: which account a provider identity reaches, and with which role.
 *
 * An identity is linked to an account by issuer + subject. The first time, an existing account is linked by
 * e-mail only when an admin made it (origin "local": never one single sign-on made, whose address the
 * provider may not have verified, nor one whose address was typed at an unbound invite), no other identity of
 * the same provider is linked to it, and the provider asserts `email_verified: true` for an address in
 * OIDC_ALLOWED_DOMAINS; otherwise a new account is made, or the sign-in is refused when the address has one.
 * An account single sign-on made from an address the provider did not verify never blocks that address's
 * verified owner: a sign-in with `email_verified: true` claims it (the squatter's identity is unlinked, and
 * everything that acted for the account ends).
 * At every sign-in and re-check (./sso-recheck.ts) the person must still qualify (domain or group), and
 * OIDC_GROUP_ROLES is applied again: a group's role replaces the account's, and losing the group that gave a
 * role falls back to OIDC_DEFAULT_ROLE. A linked identity that no longer qualifies de-provisions its account:
 * no role left but a reader of nothing, and its sessions, tokens and OAuth grants end.
 */
import { defaultSsoRole, mayLinkByEmail, type OidcConfig, type SsoClaims, type SsoRefusal, ssoQualifies } from "@/lib/auth/oidc";
import type { Role } from "@/lib/auth/roles";
import { sealText } from "@/lib/credentials/sealed";
import { startSession } from "./sessions";
import type { SsoCheckStore } from "./sso-checks";
import { type AccountStore, newUserId } from "./store";
import { type Identity, isUnverifiedSso, type User, unverifiedSsoOrigin } from "./types";

type RoleChange = { from: Role; to: Role } | null;

export type SsoOutcome =
  | {
      user: User;
      cookies: string[];
      created: boolean;
      linked: boolean;
      /** The account was made from this address unverified, by these subjects; its verified owner took it over. */
      claimed: { subjects: string[] } | null;
      roleChange: RoleChange;
    }
  | { refused: SsoRefusal; deprovisioned?: { user: User; from: Role } };

/** What a sign-in needs besides the account store: ending every session, token and OAuth grant of an account, and the re-check rows. */
export interface SsoDeps {
  accounts: AccountStore;
  endAccess: (userId: string) => Promise<void>;
  checks: SsoCheckStore;
}

/** What the provider's refresh token is sealed under: the client secret, which never sits beside it in the store. */
const REFRESH_PURPOSE = "kb-oidc-refresh";
export const sealRefreshToken = (token: string | null, cfg: Pick<OidcConfig, "clientSecret">): string | null =>
  token && cfg.clientSecret ? sealText(token, cfg.clientSecret, REFRESH_PURPOSE) : null;
export { REFRESH_PURPOSE };

/**
 * Frees an account made from an unverified address for the address's verified owner: nothing its maker signed
 * in with or made survives (their provider identities, sessions, access tokens, OAuth grants). Returns the
 * unlinked identities ("issuer subject") for the audit log.
 */
export async function releaseUnverified(deps: SsoDeps, userId: string): Promise<string[]> {
  const subjects = (await deps.accounts.identitiesOf(userId)).map((i) => `${i.issuer} ${i.subject}`);
  await deps.endAccess(userId);
  await deps.accounts.unlinkIdentities(userId);
  await deps.checks.remove(userId);
  return subjects;
}

/** The knowledge bases that go with a role change: none kept for an admin, OIDC_DEFAULT_KBS for someone who stops being one. */
const kbsFor = (role: Role, user: User, cfg: OidcConfig): string[] =>
  role === "admin" ? [] : user.role === "admin" ? [...cfg.defaultKbs].sort() : user.kbs;

type Linkable = { link: User } | { claim: User } | { refused: SsoRefusal } | null;

/** The account a first sign-in of this identity may be linked to or claim by e-mail, a refusal, or null: make one. */
async function linkable(accounts: AccountStore, claims: SsoClaims, cfg: OidcConfig, email: string): Promise<Linkable> {
  const existing = await accounts.findByEmail(email);
  if (!existing) return null;
  // Made from this address unverified: the provider's verified owner of the address takes precedence.
  if (isUnverifiedSso(existing)) return claims.emailVerified ? { claim: existing } : { refused: "sso_account_exists" };
  if (existing.origin !== "local" || !mayLinkByEmail(claims, cfg)) return { refused: "sso_account_exists" };
  // Another person at the same provider already signs in to it: one address, two people.
  const others = await accounts.identitiesOf(existing.id);
  if (others.some((i) => i.issuer === claims.issuer && i.subject !== claims.subject)) return { refused: "sso_account_exists" };
  return { link: existing };
}

/**
 * The provider's current word on a linked identity, at a sign-in or a re-check (one rule for both): an identity
 * that no longer qualifies de-provisions its account; otherwise OIDC_GROUP_ROLES is applied again.
 */
export async function applySsoClaims(
  deps: SsoDeps,
  identity: Identity,
  user: User,
  claims: SsoClaims,
  cfg: OidcConfig,
): Promise<{ refused: SsoRefusal; deprovisioned: { user: User; from: Role } } | { user: User; roleChange: RoleChange }> {
  const qualifies = ssoQualifies(claims, cfg);
  if ("refused" in qualifies) {
    // The provider no longer grants this person access: the account keeps nothing that acts for it.
    const from = user.role;
    const gone = await deps.accounts.updateUser(user.id, { role: "reader", kbs: [] });
    await deps.accounts.saveIdentity({ ...identity, groupRole: null });
    await deps.endAccess(user.id);
    await deps.checks.end(identity, new Date());
    return { ...qualifies, deprovisioned: { user: gone, from } };
  }
  return applyGroupRole(deps.accounts, identity, user, qualifies.groupRole, cfg);
}

/** A group's role always wins; losing the group that gave the current role falls back to the default role. */
async function applyGroupRole(
  accounts: AccountStore,
  identity: Identity,
  user: User,
  groupRole: Role | null,
  cfg: OidcConfig,
): Promise<{ user: User; roleChange: RoleChange }> {
  const wanted = groupRole ?? (identity.groupRole && user.role === identity.groupRole ? defaultSsoRole(cfg) : user.role);
  let roleChange: RoleChange = null;
  if (wanted !== user.role) {
    roleChange = { from: user.role, to: wanted };
    user = await accounts.updateUser(user.id, { role: wanted, kbs: kbsFor(wanted, user, cfg) });
  }
  if (identity.userId !== user.id || identity.groupRole !== groupRole)
    await accounts.saveIdentity({ ...identity, userId: user.id, groupRole });
  return { user, roleChange };
}

export async function signInWithSso(
  deps: SsoDeps,
  claims: SsoClaims & { refreshToken?: string | null },
  cfg: OidcConfig,
  sessionHours: number | undefined,
): Promise<SsoOutcome> {
  const { accounts } = deps;
  const found = await accounts.findIdentity(claims.issuer, claims.subject);
  const linkedUser = found ? ((await accounts.users()).get(found.userId) ?? null) : null;
  const now = new Date().toISOString();
  let created = false;
  let linked = false;
  let claimed: { subjects: string[] } | null = null;
  let user: User;
  let roleChange: RoleChange = null;

  if (found && linkedUser) {
    const applied = await applySsoClaims(deps, found, linkedUser, claims, cfg);
    if ("refused" in applied) return applied;
    ({ user, roleChange } = applied);
  } else {
    const qualifies = ssoQualifies(claims, cfg);
    if ("refused" in qualifies) return qualifies;
    const email = claims.email.trim().toLowerCase();
    if (!email.includes("@")) return { refused: "sso_no_email" };
    const existing = await linkable(accounts, claims, cfg, email);
    if (existing && "refused" in existing) return existing;
    const fresh = (origin: string): Pick<User, "role" | "kbs" | "origin"> => ({
      role: qualifies.role,
      kbs: qualifies.role === "admin" ? [] : [...new Set(cfg.defaultKbs)].sort(),
      origin,
    });
    if (existing && "link" in existing) {
      // Whatever role the account has was given by an admin; only a group's role replaces it.
      user = existing.link;
      linked = true;
    } else if (existing && "claim" in existing) {
      const squatter = existing.claim;
      claimed = { subjects: await releaseUnverified(deps, squatter.id) };
      user = await accounts.updateUser(squatter.id, { ...fresh(claims.issuer), name: claims.name || email });
    } else {
      user = {
        id: newUserId(),
        email,
        name: claims.name || email,
        ...fresh(claims.emailVerified ? claims.issuer : unverifiedSsoOrigin(claims.issuer)),
        passwordHash: null,
        createdAt: now,
      };
      await accounts.addUser(user);
      created = true;
    }
    const wanted = qualifies.groupRole ?? user.role;
    if (wanted !== user.role) {
      roleChange = { from: user.role, to: wanted };
      user = await accounts.updateUser(user.id, { role: wanted, kbs: kbsFor(wanted, user, cfg) });
    }
    await accounts.saveIdentity({
      issuer: claims.issuer,
      subject: claims.subject,
      userId: user.id,
      groupRole: qualifies.groupRole,
      createdAt: now,
    });
  }
  await deps.checks.save({
    userId: user.id,
    issuer: claims.issuer,
    subject: claims.subject,
    refreshSealed: sealRefreshToken(claims.refreshToken ?? null, cfg),
    confirmedAt: now,
    attemptedAt: now,
    endedAt: null,
  });
  return { user, cookies: await startSession(accounts, user, sessionHours), created, linked, claimed, roleChange };
}
