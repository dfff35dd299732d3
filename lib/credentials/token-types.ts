/** Access-token shapes the management API sends (GET/POST /api/tokens). Types only: the browser imports them too. */

/** A token's name (a label for people): at most this many characters. */
export const MAX_TOKEN_NAME_CHARS = 100;

/** Access-token scopes: "read" may search and read; "read-write" may also add and delete documents. */
export type TokenScope = "read" | "read-write";

/** A token as the management API shows it: never the hash. */
export interface PublicToken {
  id: string;
  name: string;
  scope: TokenScope;
  /** When set, the token may only use this knowledge base. */
  kb: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  /** Revoked tokens are kept (for the list) but never accepted. */
  revoked: boolean;
}
