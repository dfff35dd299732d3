/** The app's cookies: one builder for Set-Cookie values, one reader of a Cookie header. Browser-safe. */

/** A Set-Cookie value: SameSite=Lax, HttpOnly unless a page's script must read it, Secure behind https (PUBLIC_URL). */
export function setCookie(name: string, value: string, maxAgeSeconds: number, opts: { path?: string; httpOnly?: boolean } = {}): string {
  const secure = typeof process !== "undefined" && /^https:/i.test(process.env.PUBLIC_URL?.trim() ?? "");
  return [
    `${name}=${value}`,
    `Path=${opts.path ?? "/"}`,
    ...(opts.httpOnly === false ? [] : ["HttpOnly"]),
    "SameSite=Lax",
    `Max-Age=${maxAgeSeconds}`,
    ...(secure ? ["Secure"] : []),
  ].join("; ");
}

/** The value of cookie `name` in a Cookie header (or `document.cookie`), or null. */
export function cookieValue(cookieHeader: string | null, name: string): string | null {
  for (const part of (cookieHeader ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || null;
  }
  return null;
}
