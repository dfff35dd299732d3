/**
 * The browser's client for the app's own API, shared by every feature folder: the session's CSRF header, the
 * admin secret's exchange for a session, JSON calls with their errors, and copying text.
 */

import { CSRF_COOKIE, CSRF_HEADER } from "@/lib/auth/accounts/csrf";
import { cookieValue } from "@/lib/auth/cookies";

export class ApiError extends Error {
  constructor(
    public readonly status: number,
    public readonly code: string,
    message: string,
    /** The server's facts about the refusal (`error.detail`), for the page to word in its language. */
    public readonly detail?: Readonly<Record<string, unknown>>,
  ) {
    super(message);
  }
}

/** Where an earlier version kept the admin secret itself; the secret is now exchanged for a session cookie. */
const LEGACY_ADMIN_KEY = "kb-admin-token";

/** Removes an admin secret an earlier version left in this browser's storage. */
export function forgetStoredAdminSecret() {
  try {
    localStorage.removeItem(LEGACY_ADMIN_KEY);
  } catch {
    /* no storage: nothing kept */
  }
}

/** Exchanges the admin secret for a session cookie (POST /api/session {secret}): the browser never keeps the secret. */
export async function signInWithAdminSecret(secret: string): Promise<void> {
  await apiFetch("/api/session", { method: "POST", body: { secret: secret.trim() } });
}

/** The signed-in session's CSRF token, from the cookie only this site's pages can read (lib/auth/accounts/csrf.ts). */
function csrfToken(): string | null {
  return typeof document === "undefined" ? null : cookieValue(document.cookie, CSRF_COOKIE);
}

/** The headers every call to the app's own API sends: a signed-in session's CSRF token (the session itself is a cookie). */
export function authHeaders(): Record<string, string> {
  const csrf = csrfToken();
  return csrf ? { [CSRF_HEADER]: csrf } : {};
}

export async function apiFetch<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const headers: Record<string, string> = authHeaders();
  if (init.body !== undefined) headers["content-type"] = "application/json";
  let res: Response;
  try {
    res = await fetch(path, {
      method: init.method ?? "GET",
      headers,
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
      cache: "no-store",
    });
  } catch {
    throw new ApiError(0, "network", "");
  }
  const json = (await res.json().catch(() => null)) as {
    error?: { code?: string; message?: string; detail?: Record<string, unknown> };
  } | null;
  if (!res.ok) throw new ApiError(res.status, json?.error?.code ?? "internal", json?.error?.message ?? res.statusText, json?.error?.detail);
  return json as T;
}

/** What to tell the user about a failed call: the server's message, else the network text or the fallback. */
export function apiErrorText(err: unknown, networkText: string, fallback: string): string {
  if (err instanceof ApiError) return err.status === 0 ? networkText : err.message || fallback;
  return fallback;
}

/** Copies text; falls back to a hidden textarea where the Clipboard API is missing (plain http on a LAN). */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    /* fall through */
  }
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.appendChild(area);
  area.select();
  try {
    return document.execCommand("copy");
  } catch {
    return false;
  } finally {
    area.remove();
  }
}
