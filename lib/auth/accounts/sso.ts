/**
 * Signing in through single sign-on: which account a provider identity reaches, and with which role.
 *
 * An identity is linked to an account by issuer + subject. The first time, an existing account is linked by
 * e-mail only when the provider asserts `email_verified: true` for an address in OIDC_ALLOWED_DOMAINS and the
 * account's address was not typed by someone at an unbound invite; otherwise a new account is made. At every
 * sign-in the person must still qualify (domain or group), and OIDC_GROUP_ROLES is applied again: a group's
 * role replaces the account's, and losing the group that gave a role falls back to OIDC_DEFAULT_ROLE.
 */
import { defaultSsoRole, mayLinkByEmail, type OidcConfig, type SsoClaims, type SsoRefusal, ssoQualifies } from "@/lib/auth/oidc";
import type { Role } from "@/lib/auth/roles";
import { startSession } from "./sessions";
import { type AccountStore, newUserId } from "./store";
import type { User } from "./types";

export type SsoOutcome =
  | { user: User; cookies: string[]; created: boolean; linked: boolean; roleChange: { from: Role; to: Role } | null }
  | { refused: SsoRefusal };

/** The knowledge bases that go with a role change: none kept for an admin, OIDC_DEFAULT_KBS for someone who stops being one. */
const kbsFor = (role: Role, user: User, cfg: OidcConfig): string[] =>
  role === "admin" ? [] : user.role === "admin" ? [...cfg.defaultKbs].sort() : user.kbs;

export async function signInWithSso(
  accounts: AccountStore,
  claims: SsoClaims,
  cfg: OidcConfig,
  sessionHours: number | undefined,
): Promise<SsoOutcome> {
  const qualifies = ssoQualifies(claims, cfg);
  if ("refused" in qualifies) return qualifies;
  const now = new Date().toISOString();
  const identity = await accounts.findIdentity(claims.issuer, claims.subject);
  let user = identity ? ((await accounts.users()).get(identity.userId) ?? null) : null;
  let created = false;
  let linked = false;
  let previousGroupRole = identity && user ? identity.groupRole : null;

  if (!user) {
    const email = claims.email.trim().toLowerCase();
    if (!email.includes("@")) return { refused: "sso_no_email" };
    const existing = await accounts.findByEmail(email);
    if (existing) {
      // An account made earlier by this provider (before identities were linked) counts as the provider's own.
      const sameProvider = existing.origin === claims.issuer && claims.emailVerified;
      if (existing.origin === "invite" || !(mayLinkByEmail(claims, cfg) || sameProvider)) return { refused: "sso_account_exists" };
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
