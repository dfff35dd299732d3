/**
 * Signing in through single sign-on: which account a provider identity reaches, and with which role.
 *
 * An identity is linked to an account by issuer + subject. The first time, an existing account is linked by
 * e-mail only when an admin made it (origin "local": never one single sign-on made, whose address the
 * provider may not have verified, nor one whose address was typed at an unbound invite), no other identity of
 * the same provider is linked to it, and the provider asserts `email_verified: true` for an address in
 * OIDC_ALLOWED_DOMAINS; otherwise a new account is made, or the sign-in is refused when the address has one.
 * At every sign-in the person must still qualify (domain or group), and OIDC_GROUP_ROLES is applied again: a
 * group's role replaces the account's, and losing the group that gave a role falls back to OIDC_DEFAULT_ROLE.
 * A linked identity that no longer qualifies de-provisions its account: no role left but a reader of nothing,
 * and its sessions, tokens and OAuth grants end.
 */
import { defaultSsoRole, mayLinkByEmail, type OidcConfig, type SsoClaims, type SsoRefusal, ssoQualifies } from "@/lib/auth/oidc";
import type { Role } from "@/lib/auth/roles";
import { startSession } from "./sessions";
import { type AccountStore, newUserId } from "./store";
import type { User } from "./types";

export type SsoOutcome =
  | { user: User; cookies: string[]; created: boolean; linked: boolean; roleChange: { from: Role; to: Role } | null }
  | { refused: SsoRefusal; deprovisioned?: { user: User; from: Role } };

/** What a sign-in needs besides the account store: ending every session, token and OAuth grant of an account. */
export interface SsoDeps {
  accounts: AccountStore;
  endAccess: (userId: string) => Promise<void>;
}

/** The knowledge bases that go with a role change: none kept for an admin, OIDC_DEFAULT_KBS for someone who stops being one. */
const kbsFor = (role: Role, user: User, cfg: OidcConfig): string[] =>
  role === "admin" ? [] : user.role === "admin" ? [...cfg.defaultKbs].sort() : user.kbs;

/** The account a first sign-in of this identity may be linked to by e-mail, a refusal, or null: make one. */
async function linkable(accounts: AccountStore, claims: SsoClaims, cfg: OidcConfig, email: string): Promise<User | SsoRefusal | null> {
  const existing = await accounts.findByEmail(email);
  if (!existing) return null;
  if (existing.origin !== "local" || !mayLinkByEmail(claims, cfg)) return "sso_account_exists";
  // Another person at the same provider already signs in to it: one address, two people.
  const others = await accounts.identitiesOf(existing.id);
  if (others.some((i) => i.issuer === claims.issuer && i.subject !== claims.subject)) return "sso_account_exists";
  return existing;
}

export async function signInWithSso(
  deps: SsoDeps,
  claims: SsoClaims,
  cfg: OidcConfig,
  sessionHours: number | undefined,
): Promise<SsoOutcome> {
  const { accounts } = deps;
  const identity = await accounts.findIdentity(claims.issuer, claims.subject);
  let user = identity ? ((await accounts.users()).get(identity.userId) ?? null) : null;
  const qualifies = ssoQualifies(claims, cfg);
  if ("refused" in qualifies) {
    if (!identity || !user) return qualifies;
    // The provider no longer grants this person access: the account keeps nothing that acts for it.
    const from = user.role;
    user = await accounts.updateUser(user.id, { role: "reader", kbs: [] });
    await accounts.saveIdentity({ ...identity, groupRole: null });
    await deps.endAccess(user.id);
    return { ...qualifies, deprovisioned: { user, from } };
  }
  const now = new Date().toISOString();
  let created = false;
  let linked = false;
  let previousGroupRole = identity && user ? identity.groupRole : null;

  if (!user) {
    const email = claims.email.trim().toLowerCase();
    if (!email.includes("@")) return { refused: "sso_no_email" };
    const existing = await linkable(accounts, claims, cfg, email);
    if (typeof existing === "string") return { refused: existing };
    if (existing) {
      user = existing;
      linked = true;
      // Whatever role the account has was given by an admin; only a group's role replaces it.
      previousGroupRole = null;
    } else {
      const role = qualifies.role;
      user = {
        id: newUserId(),
        email,
        name: claims.name || email,
        role,
        kbs: role === "admin" ? [] : [...new Set(cfg.defaultKbs)].sort(),
        passwordHash: null,
        origin: claims.issuer,
        createdAt: now,
      };
      await accounts.addUser(user);
      created = true;
    }
  }

  // A group's role always wins; losing the group that gave the current role falls back to the default role.
  const wanted = qualifies.groupRole ?? (previousGroupRole && user.role === previousGroupRole ? defaultSsoRole(cfg) : user.role);
  let roleChange: { from: Role; to: Role } | null = null;
  if (!created && wanted !== user.role) {
    roleChange = { from: user.role, to: wanted };
    user = await accounts.updateUser(user.id, { role: wanted, kbs: kbsFor(wanted, user, cfg) });
  }
  if (!identity || identity.userId !== user.id || identity.groupRole !== qualifies.groupRole) {
    await accounts.saveIdentity({
      issuer: claims.issuer,
      subject: claims.subject,
      userId: user.id,
      groupRole: qualifies.groupRole,
      createdAt: identity?.userId === user.id ? identity.createdAt : now,
    });
  }
  return { user, cookies: await startSession(accounts, user, sessionHours), created, linked, roleChange };
}
