/**
 * The one rule for browser requests (CSRF, DNS rebinding), applied by the web API and MCP alike: a request
 * that carries an Origin header must come from the app's own origin, the host it was addressed to (its
 * `Host`; the scheme is left to a TLS proxy in front), or one listed in ALLOWED_ORIGINS. Another loopback
 * port is not the app: any local dev server, notebook or page could otherwise plant documents or mint
 * tokens. A DNS-rebinding page names its own host in `Host`, which is never local (lib/auth/peer.ts).
 * Requests without an Origin (desktop MCP clients, curl) are not browser requests and pass to the
 * credential check.
 */
export function isOriginAllowed(origin: string | null, host: string | null, allowed: readonly string[]): boolean {
  if (!origin) return true;
  const o = URL.parse(origin);
  if (!o) return false;
  if (host && o.host === host.trim().toLowerCase()) return true;
  return allowed.includes("*") || allowed.includes(o.origin);
}
