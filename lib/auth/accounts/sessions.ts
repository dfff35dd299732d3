/** Session cookies: made at sign-in, read on every request, cleared at sign-out. */
import { randomBytes } from "node:crypto";
import { cookieValue, setCookie } from "@/lib/auth/cookies";
import type { AccountStore } from "./store";
import type { Session, User } from "./types";

export { CSRF_HEADER } from "./csrf";

import { CSRF_COOKIE } from "./csrf";

const SESSION_COOKIE = "kb_session";

/** The session's two cookies: the HttpOnly session secret, and the CSRF token the page's script reads. */
const sessionCookies = (secret: string, csrf: string, maxAgeSeconds: number): string[] => [
  setCookie(SESSION_COOKIE, secret, maxAgeSeconds),
  setCookie(CSRF_COOKIE, csrf, maxAgeSeconds, { httpOnly: false }),
];

/** Set-Cookie values that end the session in the browser. */
export const clearedSessionCookies = (): string[] => sessionCookies("", "", 0);

/** A JSON (or redirect, with `location`) answer that sets these cookies; never cached. */
export function withCookies(body: unknown, cookies: readonly string[], init: { status?: number; location?: string } = {}): Response {
  const headers = new Headers({ "Cache-Control": "no-store" });
  for (const c of cookies) headers.append("Set-Cookie", c);
  if (init.location) {
    headers.set("Location", init.location);
    return new Response(null, { status: init.status ?? 303, headers });
  }
  headers.set("Content-Type", "application/json");
  return new Response(JSON.stringify(body), { status: init.status ?? 200, headers });
}

/** The session cookie's value in a Cookie header, or null. */
export const sessionSecret = (cookieHeader: string | null): string | null => cookieValue(cookieHeader, SESSION_COOKIE);

/** A session made with the admin secret is kept under this user id and the secret's fingerprint (never the secret). */
const ADMIN_SESSION_PREFIX = "admin-secret:";
export const adminSessionUserId = (fingerprint: string): string => `${ADMIN_SESSION_PREFIX}${fingerprint}`;

/** A session made with the owner sign-in link (lib/auth/owner-link.ts) is kept under this user id. */
export const LOCAL_OWNER_USER_ID = "local-owner";

/**
 * The signed-in user of a request's Cookie header, with the session; `user: "admin-secret"` for a session the
 * admin secret made (while that secret is still the current one, `adminFingerprint`), `"local-owner"` for one
 * the owner link made; otherwise null.
 */
export async function sessionUser(
  accounts: AccountStore,
  cookieHeader: string | null,
  adminFingerprint: string | null = null,
): Promise<{ user: User | "admin-secret" | "local-owner"; session: Session } | null> {
  const plain = sessionSecret(cookieHeader);
  const session = plain ? await accounts.findSession(plain) : null;
  if (!session) return null;
  if (session.userId === LOCAL_OWNER_USER_ID) return { user: "local-owner", session };
  if (session.userId.startsWith(ADMIN_SESSION_PREFIX)) {
    return adminFingerprint && session.userId === adminSessionUserId(adminFingerprint) ? { user: "admin-secret", session } : null;
  }
  const user = (await accounts.users()).get(session.userId);
  return user ? { user, session } : null;
}

/**
 * A new session for `user`: its Set-Cookie header values. The session cookie is HttpOnly; the CSRF token comes
 * in a second cookie the page's script reads and sends back in X-CSRF-Token (a page of another site can
 * neither read it nor set the header).
 */
export async function startSession(accounts: AccountStore, user: Pick<User, "id">, hours = 168): Promise<string[]> {
  const plain = `kbs_${randomBytes(32).toString("base64url")}`;
  const csrf = randomBytes(24).toString("base64url");
  const now = new Date();
  await accounts.addSession(
    {
      userId: user.id,
      csrf,
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + hours * 3600_000).toISOString(),
    },
    plain,
  );
  return sessionCookies(plain, csrf, hours * 3600);
}
