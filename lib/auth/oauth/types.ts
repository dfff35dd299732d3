/** OAuth grant shapes the management API sends (GET /api/oauth/grants). Types only: the browser imports them too. */

/** What the admin allowed at consent: "read" (search and read) or "read-write" (also add and delete). */
export type GrantScope = "read" | "read-write";

/** One client's authorization: the endpoint its tokens are bound to and what they may reach. */
export interface OAuthGrant {
  id: string;
  clientId: string;
  clientName: string;
  /** The MCP endpoint URL (RFC 8707 resource) every token of the grant is bound to. */
  resource: string;
  /** The knowledge bases chosen at consent (for /api/mcp/<kb>: that one). */
  kbs: string[];
  scope: GrantScope;
  createdAt: string;
  lastUsedAt: string | null;
  revoked: boolean;
}
