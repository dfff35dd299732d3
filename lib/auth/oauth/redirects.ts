/**
 * Which redirect URIs a client may have and which one a request may use: https; http on a loopback host, any
 * port at request time (RFC 8252 §7.3, OAuth 2.1 §8.4.2: a native app listens on an ephemeral port); or a
 * native app's private-use scheme in reverse-DNS form (RFC 8252 §7.1, e.g. `com.example.app:/oauth/callback`),
 * matched exactly. A scheme without a dot is refused: it is no one's domain but often a handler of the
 * browser or the system (`microsoft-edge:`, `ms-msdt:`, `search-ms:`, `firefox:`, `javascript:`) that runs,
 * opens or searches something — except the few MCP hosts whose callback predates the rule (`cursor:`, `vscode:`). PKCE, required of every client, is what protects a code another app's scheme
 * catches. No fragment, not even an empty one (`…/cb#`).
 */

const LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "[::1]"];

/** A private-use scheme: reverse-DNS labels (at least two, dot-separated) of letters, digits and hyphens. */
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9-]*(\.[a-z0-9-]+)+$/;

/** Single-label schemes of MCP hosts in use, which open the host itself: Cursor's `cursor://anysphere.cursor-mcp/oauth/callback`, VS Code's. */
const MCP_HOST_SCHEMES = new Set(["cursor", "vscode", "vscode-insiders"]);

function isLoopbackHttp(u: URL): boolean {
  return u.protocol === "http:" && LOOPBACK_HOSTS.includes(u.hostname);
}

export const REDIRECT_RULE =
  "each must be https, http on localhost / 127.0.0.1 / [::1], or an app's own scheme in reverse-DNS form (com.example.app:/callback), without a fragment";

/** A redirect URI a client may register (or list in its metadata document). */
export function acceptableRedirect(uri: string): boolean {
  const u = URL.parse(uri);
  if (!u || uri.includes("#") || u.username || u.password) return false;
  if (u.protocol === "https:") return true;
  if (u.protocol === "http:") return isLoopbackHttp(u);
  const scheme = u.protocol.slice(0, -1);
  return (PRIVATE_USE_SCHEME.test(scheme) || MCP_HOST_SCHEMES.has(scheme)) && uri.length > u.protocol.length;
}

/** The registered redirect URI a request's `redirect_uri` matches: exactly, or a loopback one on any port. */
export function matchRedirect(registered: readonly string[], requested: string | null): string | null {
  if (!requested) return null;
  if (registered.includes(requested)) return requested;
  const r = URL.parse(requested);
  if (!r || !isLoopbackHttp(r) || requested.includes("#") || r.username || r.password) return null;
  const tail = (u: URL) => `${u.pathname}${u.search}`;
  // Any loopback name may stand for another: all three reach only the user's machine.
  return registered.find((one) => {
    const u = URL.parse(one);
    return u !== null && isLoopbackHttp(u) && tail(u) === tail(r);
  })
    ? requested
    : null;
}
