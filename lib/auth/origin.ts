/**
 * DNS-rebinding guard for the MCP endpoint: a request that carries an Origin header must come from
 * the app's own origin, a loopback origin, or one listed in ALLOWED_ORIGINS. Requests without an
 * Origin (desktop MCP clients, curl) are not browser requests and pass.
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
  if (allowed.includes("*") || allowed.includes(o.origin)) return true;
  return ["localhost", "127.0.0.1", "[::1]"].includes(o.hostname) && isLoopbackHost(new URL(requestUrl).hostname);
}

function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host === "[::1]" || /^127\./.test(host);
}
