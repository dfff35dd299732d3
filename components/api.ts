/**
 * The browser's client for the app's own API, shared by every feature folder: the stored admin token, the
 * Authorization header it gives, JSON calls with their errors, and copying text.
 */

import { CSRF_COOKIE, CSRF_HEADER } from "@/lib/auth/accounts/csrf";
import { cookieValue } from "@/lib/auth/cookies";

export class ApiError extends Error {
  constructor(
    public readonly status: number,
    public readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const ADMIN_KEY = "kb-admin-token";

export function getAdminToken(): string {
  try {
    return localStorage.getItem(ADMIN_KEY) ?? "";
  } catch {
    return "";
  }
}

export function setAdminToken(token: string) {
  try {
    if (token) localStorage.setItem(ADMIN_KEY, token);
    else localStorage.removeItem(ADMIN_KEY);
  } catch {
    /* private mode: the token lasts for this page only */
  }
}

/** The signed-in session's CSRF token, from the cookie only this site's pages can read (lib/auth/accounts/csrf.ts). */
function csrfToken(): string | null {
  return typeof document === "undefined" ? null : cookieValue(document.cookie, CSRF_COOKIE);
}

/** The headers every call to the app's own API sends: the stored admin token, and a signed-in session's CSRF token. */
export function authHeaders(): Record<string, string> {
  const admin = getAdminToken();
  const csrf = csrfToken();
  return { ...(admin ? { authorization: `Bearer ${admin}` } : {}), ...(csrf ? { [CSRF_HEADER]: csrf } : {}) };
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
  const json = (await res.json().catch(() => null)) as { error?: { code?: string; message?: string } } | null;
  if (!res.ok) throw new ApiError(res.status, json?.error?.code ?? "internal", json?.error?.message ?? res.statusText);
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
