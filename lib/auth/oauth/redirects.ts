/**
 * Which redirect URIs a client may have and which one a request may use: https; http on a loopback host, any
 * port at request time (RFC 8252 §7.3, OAuth 2.1 §8.4.2: a native app listens on an ephemeral port); or a
 * native app's private-use scheme (RFC 8252 §7.1, e.g. `cursor://anysphere.cursor-mcp/oauth/callback`),
 * matched exactly. PKCE, required of every client, is what protects a code another app's scheme catches.
 */

const LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "[::1]"];

/** Schemes that are no app's callback: they run code, read local data or reach another protocol. */
const NOT_PRIVATE_USE = new Set([
  "about",
  "blob",
  "chrome",
  "data",
  "file",
  "filesystem",
  "ftp",
  "intent",
  "javascript",
  "mailto",
  "sms",
  "tel",
  "view-source",
  "vbscript",
  "ws",
  "wss",
]);

function isLoopbackHttp(u: URL): boolean {
  return u.protocol === "http:" && LOOPBACK_HOSTS.includes(u.hostname);
}

export const REDIRECT_RULE =
  "each must be https, http on localhost / 127.0.0.1 / [::1], or an app's own scheme (cursor://…), without a fragment";

/** A redirect URI a client may register (or list in its metadata document). */
export function acceptableRedirect(uri: string): boolean {
  const u = URL.parse(uri);
  if (!u || u.hash || u.username || u.password) return false;
  if (u.protocol === "https:") return true;
  if (u.protocol === "http:") return isLoopbackHttp(u);
  const scheme = u.protocol.slice(0, -1);
  return !NOT_PRIVATE_USE.has(scheme) && uri.length > u.protocol.length;
}

/** The registered redirect URI a request's `redirect_uri` matches: exactly, or a loopback one on any port. */
export function matchRedirect(registered: readonly string[], requested: string | null): string | null {
  if (!requested) return null;
  if (registered.includes(requested)) return requested;
  const r = URL.parse(requested);
  if (!r || !isLoopbackHttp(r) || r.hash || r.username || r.password) return null;
  const tail = (u: URL) => `${u.pathname}${u.search}`;
  // Any loopback name may stand for another: all three reach only the user's machine.
  return registered.find((one) => {
    const u = URL.parse(one);
    return u !== null && isLoopbackHttp(u) && tail(u) === tail(r);
  })
    ? requested
    : null;
}

/** What the consent page names as where the answer goes: the host of a web redirect, the app scheme of a native one. */
export function redirectLabel(uri: string): string {
  const u = new URL(uri);
  return u.protocol === "https:" || u.protocol === "http:" ? u.host : `${u.protocol}//${u.host}`;
}
