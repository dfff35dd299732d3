/**
 * The web app's one access check: who is asking, from facts the server made itself.
 *
 * In order: the origin rule (lib/auth/origin.ts) → a session cookie of a signed-in account (a state-changing
 * request must also carry the session's CSRF token; a single-sign-on account must still be vouched for by its
 * provider, lib/auth/accounts/sso-recheck.ts; the owner link's session is the owner) → this machine without
 * sign-in, only with LOCAL_OWNER=1 (lib/auth/peer.ts; not with REQUIRE_LOGIN=1 or REQUIRE_TOKEN=1) → the admin secret as a bearer token (the recovery path; wrong secrets count against the
 * address's failed-authentication budget, 429 once spent: see adminSecretAttempt) → 401.
 */

import { CSRF_HEADER, sessionSecret, sessionUser } from "@/lib/auth/accounts/sessions";
import type { AccountStore } from "@/lib/auth/accounts/store";
import type { Session, User } from "@/lib/auth/accounts/types";
import { type AccessLimit, limitOf, mayRead, mayWrite, type Viewer } from "@/lib/auth/roles";
import { bearerSecret } from "@/lib/credentials/tokens";
import { AppError } from "@/lib/types";
import { adminSecretFingerprint } from "./admin-secret";
import { type AuthSettings, resolveAuthSettings } from "./config";
import { safeEqual } from "./internal";
import { isOriginAllowed } from "./origin";
import { type Caller, callerOf } from "./peer";
import { adminSecretAttempt } from "./request";

export type Principal =
  /** The owner link's session or (LOCAL_OWNER=1) this machine without sign-in, or the admin secret (a bearer token, or the session it was exchanged for): everything, like an admin. */
  | { kind: "owner"; via: "local" | "admin-secret"; caller: Caller; session?: Session }
  | { kind: "user"; user: User; session: Session; caller: Caller };

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export function limitOfPrincipal(p: Principal): AccessLimit {
  return p.kind === "owner" ? { kbs: null, write: true } : limitOf(p.user);
}

/** Whether the principal may read knowledge base `kb`: the filter of every list a person sees. */
export const mayReadKb =
  (p: Principal) =>
  (kb: string): boolean =>
    mayRead(limitOfPrincipal(p), kb);

export const isAdmin = (p: Principal): boolean => p.kind === "owner" || p.user.role === "admin";

/** The owner id of what this principal makes (tokens, grants, conversations); null for the admin secret's. */
export const ownerIdOf = (p: Principal): string | null => (p.kind === "user" ? p.user.id : null);

export function viewerOf(p: Principal): Viewer {
  if (p.kind === "owner") return { kind: "owner", id: null, email: null, name: null, role: "admin", kbs: [], signedIn: Boolean(p.session) };
  const { id, email, name, role, kbs } = p.user;
  return { kind: "user", id, email, name, role, kbs };
}

/** Only the origin check: browser requests from foreign origins are refused (CSRF, DNS rebinding). */
export function checkOrigin(req: Request, settings: AuthSettings = resolveAuthSettings()): AppError | null {
  if (!isOriginAllowed(req.headers.get("origin"), req.headers.get("host"), settings.allowedOrigins)) {
    return new AppError("forbidden", "Requests from this origin are not allowed.");
  }
  return null;
}

export interface AppAccessDeps {
  accounts: () => Promise<AccountStore>;
  /** Whether single sign-on still vouches for this account (lib/auth/accounts/sso-recheck.ts); absent: not checked. */
  ssoAccess?: (userId: string) => Promise<boolean>;
  settings?: AuthSettings;
}

/** Who sent `req` (see the module comment); throws the AppError to answer otherwise. */
export async function authenticateApp(req: Request, deps: AppAccessDeps): Promise<Principal> {
  const settings = deps.settings ?? resolveAuthSettings();
  const denied = checkOrigin(req, settings);
  if (denied) throw denied;
  const caller = callerOf(req, settings);

  if (sessionSecret(req.headers.get("cookie"))) {
    const signedIn = await sessionUser(await deps.accounts(), req.headers.get("cookie"), adminSecretFingerprint(settings.adminToken));
    if (signedIn) {
      if (!SAFE_METHODS.has(req.method) && !safeEqual(req.headers.get(CSRF_HEADER) ?? "", signedIn.session.csrf)) {
        throw new AppError("forbidden", "The request is missing this session's CSRF token; reload the page and try again.");
      }
      const { user, session } = signedIn;
      if (user === "admin-secret") return { kind: "owner", via: "admin-secret", caller, session };
      if (user === "local-owner") return { kind: "owner", via: "local", caller, session };
      if (deps.ssoAccess && !(await deps.ssoAccess(user.id))) {
        throw new AppError("unauthorized", "Your single sign-on membership could not be confirmed; sign in again.");
      }
      return { kind: "user", user, session, caller };
    }
  }
  if (caller.local && !settings.requireLogin) return { kind: "owner", via: "local", caller };

  const presented = bearerSecret(req.headers.get("authorization"));
  if (presented || req.headers.get("authorization")) {
    const attempt = adminSecretAttempt(settings, caller, presented);
    if (attempt === "admin") return { kind: "owner", via: "admin-secret", caller };
    if (attempt === "locked")
      throw new AppError("rate_limited", "Too many failed authentications from this address; try again in a minute.");
  }
  throw new AppError("unauthorized", "Sign in first (or send the admin secret as a bearer token).");
}

/** 403 unless the principal may administer (manage people, knowledge bases, the audit log). */
export function requireAdmin(p: Principal): void {
  if (!isAdmin(p)) throw new AppError("forbidden", "Only an admin may do this.");
}

/** 403 unless the principal may read (`write` false) or change (`write` true) knowledge base `kb`. */
export function requireKbAccess(p: Principal, kb: string, write: boolean): void {
  const limit = limitOfPrincipal(p);
  if (!mayRead(limit, kb)) throw new AppError("forbidden", `You have no access to the knowledge base "${kb}".`, undefined, kb);
  if (write && !mayWrite(limit, kb)) throw new AppError("forbidden", `You may not change the knowledge base "${kb}".`, undefined, kb);
}
