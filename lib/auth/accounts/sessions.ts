/** Session cookies: made at sign-in, read on every request, cleared at sign-out. */
import { randomBytes } from "node:crypto";
import type { AccountStore } from "./store";
import type { Session, User } from "./types";

export const SESSION_COOKIE = "kb_session";
/** The header that carries a session's CSRF token on every state-changing request made with its cookie. */
export const CSRF_HEADER = "x-csrf-token";

/** Behind HTTPS (PUBLIC_URL https://…) the cookie is only ever sent over TLS. */
function secure(): boolean {
  return /^https:/i.test(process.env.PUBLIC_URL?.trim() ?? "");
}

function cookie(value: string, maxAgeSeconds: number): string {
  return [
    `${SESSION_COOKIE}=${value}`,
    "Path=/",
    "HttpOnly",
    "SameSite=Lax",
    `Max-Age=${maxAgeSeconds}`,
    ...(secure() ? ["Secure"] : []),
  ].join("; ");
}

export const clearedSessionCookie = (): string => cookie("", 0);

/** The session cookie's value in a Cookie header, or null. */
export function sessionSecret(cookieHeader: string | null): string | null {
  for (const part of (cookieHeader ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim() || null;
  }
  return null;
}

/** The signed-in user of a request's Cookie header, with the session, or null. */
export async function sessionUser(accounts: AccountStore, cookieHeader: string | null): Promise<{ user: User; session: Session } | null> {
  const plain = sessionSecret(cookieHeader);
  const session = plain ? await accounts.findSession(plain) : null;
  const user = session ? (await accounts.users()).get(session.userId) : undefined;
  return session && user ? { user, session } : null;
}

/** A new session for `user`: its Set-Cookie header value. */
export async function startSession(accounts: AccountStore, user: User, hours = 168): Promise<string> {
  const plain = `kbs_${randomBytes(32).toString("base64url")}`;
  const now = new Date();
  await accounts.addSession(
    {
      userId: user.id,
      csrf: randomBytes(24).toString("base64url"),
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + hours * 3600_000).toISOString(),
    },
    plain,
  );
  return cookie(plain, hours * 3600);
}
