/**
 * The one rule for browser requests (CSRF, DNS rebinding), applied by the web API and MCP alike: a request
 * that carries an Origin header must come from the app's own origin (the one it was addressed to; a Host
 * that is not a loopback name never counts as local, lib/auth/peer.ts) or one listed in ALLOWED_ORIGINS.
 * Another loopback origin is not the app: any local dev server, notebook or page could otherwise plant
 * documents or mint tokens. Requests without an Origin (desktop MCP clients, curl) are not browser requests
 * and pass to the credential check.
 */
export function isOriginAllowed(origin: string | null, requestUrl: string, allowed: readonly string[]): boolean {
  if (!origin) return true;
  let o: URL;
  try {
    o = new URL(origin);
  } catch {
    return false;
  }
  if (o.origin === new URL(requestUrl).origin) return true;
  return allowed.includes("*") || allowed.includes(o.origin);
}
