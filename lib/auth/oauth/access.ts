/**
 * OAuth access tokens at the MCP endpoint: a `kboa_` bearer token authenticates as its grant, and only at the
 * endpoint it was issued for (RFC 8707 audience: a token for /api/mcp/hr is refused at /api/mcp/finance and at
 * /api/mcp). It yields the same scope object as an access token of the Connect dialog: read or read-write, and
 * the knowledge bases chosen at consent.
 */
import type { AccessToken } from "@/lib/credentials/tokens";
import type { Store } from "@/lib/store";
import { getOAuthStore } from "./store";
import { resourceMetadataUrl, resourceUrl, SCOPES } from "./urls";

const PREFIX = "kboa_";

export function isOAuthAccessToken(secret: string): boolean {
  return secret.startsWith(PREFIX);
}

/**
 * `guess`: the token was never issued (counts against the failed-authentication budget). An expired or
 * revoked one does not: hosted AI apps call from a few shared addresses, and every user's token expires hourly.
 */
export type OAuthAccess = { token: AccessToken; kbs: string[]; touch: () => Promise<void> } | { invalid: string; guess: boolean };

/** The grant behind an OAuth access token presented at `/api/mcp` (kb undefined) or `/api/mcp/<kb>`. */
export async function authenticateOAuthToken(store: Store, secret: string, kb: string | undefined): Promise<OAuthAccess> {
  const oauth = await getOAuthStore(store);
  const grant = await oauth.authenticate(secret);
  if (grant === "unknown") return { invalid: "The access token is invalid.", guess: true };
  if (grant === "stale") return { invalid: "The access token has expired or been revoked.", guess: false };
  if (grant.resource !== resourceUrl(kb))
    return { invalid: `This access token is for ${grant.resource}, not this endpoint.`, guess: false };
  const token: AccessToken = {
    id: grant.id,
    name: grant.clientName,
    hash: "",
    scope: grant.scope,
    kb: null,
    createdAt: grant.createdAt,
    lastUsedAt: grant.lastUsedAt,
    revoked: false,
  };
  return { token, kbs: grant.kbs, touch: () => oauth.touchGrant(grant.id) };
}

/** The RFC 6750 / RFC 9728 challenge of a 401 at an MCP endpoint: where its metadata is and the scopes to ask for. */
export function bearerChallenge(kb: string | undefined, error?: string): string {
  const parts = [`resource_metadata="${resourceMetadataUrl(kb)}"`, `scope="${SCOPES.join(" ")}"`];
  if (error) parts.unshift('error="invalid_token"', `error_description="${error.replace(/["\\]/g, "'")}"`);
  return `Bearer realm="mcp", ${parts.join(", ")}`;
}
