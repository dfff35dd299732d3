/**
 * Where the OAuth pieces live, all under PUBLIC_URL (lib/config.ts publicBaseUrl: never a request's Host or
 * forwarded headers): the issuer, its endpoints, the MCP endpoints (the protected resources) and their
 * metadata documents.
 */
import { publicBaseUrl } from "@/lib/config";
import { KB_NAME_PATTERN } from "@/lib/kb/names";

/** "kb:read" may search and read; "kb:write" may also add and delete (the admin decides at consent). */
export const SCOPES = ["kb:read", "kb:write"] as const;
const READ_SCOPE = SCOPES[0];
export const WRITE_SCOPE = SCOPES[1];

/** The scope string of a grant's access. */
export function scopeOf(access: "read" | "read-write"): string {
  return access === "read-write" ? SCOPES.join(" ") : READ_SCOPE;
}

export function issuer(): string {
  return publicBaseUrl();
}

export function oauthEndpoints(base = issuer()) {
  return {
    authorization: `${base}/oauth/authorize`,
    token: `${base}/oauth/token`,
    registration: `${base}/oauth/register`,
    revocation: `${base}/oauth/revoke`,
  };
}

/** The MCP endpoint URL: /api/mcp, or /api/mcp/<kb>. */
export function resourceUrl(kb?: string, base = issuer()): string {
  return kb === undefined ? `${base}/api/mcp` : `${base}/api/mcp/${kb}`;
}

/** RFC 9728 §3.1: the well-known path inserted before the resource's path. */
export function resourceMetadataUrl(kb?: string, base = issuer()): string {
  return kb === undefined
    ? `${base}/.well-known/oauth-protected-resource/api/mcp`
    : `${base}/.well-known/oauth-protected-resource/api/mcp/${kb}`;
}

/**
 * The MCP endpoint a `resource` parameter (RFC 8707) names: `{ kb: undefined }` for /api/mcp, `{ kb }` for
 * /api/mcp/<kb>, null for anything else (another host, path, a query or fragment). A trailing slash is allowed.
 */
export function parseResource(raw: string | null | undefined, base = issuer()): { kb: string | undefined } | null {
  const url = raw ? URL.parse(raw) : null;
  if (!url || url.search || url.hash || url.username || url.password) return null;
  const root = new URL(base);
  if (url.origin !== root.origin) return null;
  const prefix = `${root.pathname.replace(/\/+$/, "")}/api/mcp`;
  const path = url.pathname.replace(/\/+$/, "");
  if (path === prefix) return { kb: undefined };
  if (!path.startsWith(`${prefix}/`)) return null;
  const kb = path.slice(prefix.length + 1);
  return KB_NAME_PATTERN.test(kb) ? { kb } : null;
}
