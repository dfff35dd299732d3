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
  /** "local" or the OpenID issuer that created the account. */
  origin: string;
  createdAt: string;
}

/** A user as the management API shows it: never the password hash. */
export type PublicUser = Omit<User, "passwordHash">;

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

/** What an owner row ties to a user: tokens, OAuth grants and conversations they made. */
export type OwnedKind = "token" | "oauth_grant" | "conversation";

export const publicUser = ({ passwordHash: _, ...u }: User): PublicUser => u;
