import type { Role } from "@/lib/auth/roles";

export interface User {
  id: string;
  /** Lower-cased; one account per address. */
  email: string;
  name: string;
  role: Role;
  /** Granted knowledge bases (ignored for admins). */
  kbs: string[];
  /** Argon2id; null for single-sign-on accounts. */
  passwordHash: string | null;
  /**
   * "local" (made by an admin, or from an invite bound to this address), "invite" (the address was chosen by
   * the person at an unbound invite: never verified), the OpenID issuer that created the account from an
   * address it verified, or `unverified:<issuer>` when it did not (see unverifiedSsoOrigin).
   */
  origin: string;
  createdAt: string;
}

/** A user as the management API shows it: never the password hash; `emailVerified` false for an address nobody verified. */
export type PublicUser = Omit<User, "passwordHash"> & { emailVerified: boolean };

const UNVERIFIED_SSO = "unverified:";

/** The origin of an account single sign-on made from an address the provider did not verify: it never blocks the address's verified owner. */
export const unverifiedSsoOrigin = (issuer: string): string => `${UNVERIFIED_SSO}${issuer}`;

export const isUnverifiedSso = (u: Pick<User, "origin">): boolean => u.origin.startsWith(UNVERIFIED_SSO);

/** Whether nobody verified the account's address: typed at an unbound invite, or unverified at the provider. */
const emailUnverified = (u: Pick<User, "origin">): boolean => u.origin === "invite" || isUnverifiedSso(u);

export interface Session {
  hash: string;
  userId: string;
  /** Sent back in X-CSRF-Token on every state-changing request made with the cookie. */
  csrf: string;
  createdAt: string;
  expiresAt: string;
}

export interface Invite {
  hash: string;
  email: string | null;
  role: Role;
  kbs: string[];
  createdBy: string;
  createdAt: string;
  expiresAt: string;
  used: boolean;
}

/** A provider identity linked to an account (single sign-on finds the account by issuer + subject, never by e-mail alone). */
export interface Identity {
  issuer: string;
  subject: string;
  userId: string;
  /** The role the provider's groups (OIDC_GROUP_ROLES) gave at the last sign-in; null: none. */
  groupRole: Role | null;
  createdAt: string;
}

/** What an owner row ties to a user: tokens, OAuth grants and conversations they made. */
export type OwnedKind = "token" | "oauth_grant" | "conversation";

export const publicUser = ({ passwordHash: _, ...u }: User): PublicUser => ({ ...u, emailVerified: !emailUnverified(u) });
