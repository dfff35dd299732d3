/**
 * Who is asking at the MCP endpoint, and what they may reach: one step from a request to a principal with its
 * knowledge-base scope, or the refusal to answer (the 401 challenge that starts OAuth discovery among them).
 * The endpoint (mcp/http.ts) only serves what this returns.
 *
 * In order: Origin (DNS rebinding) → who is asking (peer.ts) → bearer token: the app's own chat (internal
 * secret), an access token of the Connect dialog (`kbt_`) or an OAuth access token (`kboa_`, oauth/access.ts:
 * only at the endpoint it was issued for, with the knowledge bases chosen at consent) — 401 with the resource
 * metadata URL; wrong ones count against the failed-authentication budget, 429 → the token owner's grants →
 * rate limit per token or client address (429; not for a local run) → knowledge-base scope: the path's
 * knowledge base, the token's limit, the owner's grants and the X-KB-Filter header (403/404).
 */

import { type AccessToken, bearerSecret } from "@/lib/credentials/tokens";
import { getRegistry, type KbCatalogEntry, kbCatalog, type Registry } from "@/lib/kb";
import { KB_FILTER_HEADER } from "@/lib/kb/names";
import type { Store } from "@/lib/store";
import { DOCUMENT_FILTER_HEADER, decodeCommaList, decodeDocumentFilter, isAttachmentKb } from "@/lib/tools/scope";
import { ssoAccessAllowed } from "./accounts/sso-recheck";
import { getAccountStore } from "./accounts/store";
import type { AuthSettings } from "./config";
import { isInternalSecret } from "./internal";
import { authenticateOAuthToken, bearerChallenge, isOAuthAccessToken } from "./oauth/access";
import { isOriginAllowed } from "./origin";
import { type Caller, callerOf } from "./peer";
import { addressKey } from "./rate-limit";
import { authFailures, getRateLimiter } from "./request";
import { type AccessLimit, limitOf, mayRead, readableOf } from "./roles";

/** Who sent an MCP request. */
export interface McpPrincipal {
  /**
   * `token`: an access token of the Connect dialog; `oauth`: an OAuth grant; `internal`: the app's own chat;
   * `local`: this machine without a token (a local run, REQUIRE_TOKEN unset).
   */
  via: "token" | "oauth" | "internal" | "local";
  /** The token or grant presented (an OAuth grant as a token of the same shape); null for `internal` and `local`. */
  token: AccessToken | null;
  caller: Caller;
  /** The account that made the token or grant (absent: made with the admin secret). */
  ownerId?: string;
  /** How the audit log names it. */
  actor: string;
}

/** What the request may reach. */
export interface McpScope {
  /** The knowledge base of the path (`/api/mcp/<kb>`); undefined at `/api/mcp`. */
  kb: string | undefined;
  /** The knowledge bases it may touch; undefined: all. Never empty. */
  kbs: string[] | undefined;
  /** The documents searches are limited to (X-Document-Filter); undefined: all. */
  documents: string[] | undefined;
  /** Every existing knowledge base with its document titles. */
  catalog: readonly KbCatalogEntry[];
  store: Store;
  registry: Registry;
}

/** A refusal, with its HTTP status and the headers it needs (WWW-Authenticate, Retry-After). */
export interface McpRefusal {
  status: 401 | 403 | 404 | 429 | 500;
  message: string;
  headers?: Record<string, string>;
}

export type McpAccess = { principal: McpPrincipal; scope: McpScope } | { refused: McpRefusal };

export interface McpAccessOptions {
  /** The knowledge base of the path, already checked against the name rule; undefined at `/api/mcp`. */
  kb?: string;
  auth: AuthSettings;
  getStore: () => Promise<Store>;
  /** Default: the registry beside the store. */
  registry?: Registry;
}

const refuse = (status: McpRefusal["status"], message: string, headers?: Record<string, string>): { refused: McpRefusal } => ({
  refused: { status, message, ...(headers ? { headers } : {}) },
});

/**
 * 401 with the challenge that starts OAuth discovery (RFC 9728 §5.1: resource_metadata, and the scopes); RFC
 * 6750 §3: no error code when the request carried no credentials.
 */
const challenge = (kb: string | undefined, message: string, invalid: boolean) =>
  refuse(401, message, { "WWW-Authenticate": bearerChallenge(kb, invalid ? message : undefined) });

const tooManyFailures = () =>
  refuse(429, "Too many failed authentications from this address; try again in a minute.", { "Retry-After": "60" });

/** The principal behind the request's credentials, or the refusal (see the module comment). */
async function authenticate(
  req: Request,
  options: McpAccessOptions,
  store: Store,
  registry: Registry,
  caller: Caller,
): Promise<
  { principal: McpPrincipal; limit: AccessLimit | null; oauthKbs: string[] | null; touch: () => Promise<void> } | { refused: McpRefusal }
> {
  const { kb, auth } = options;
  const secret = bearerSecret(req.headers.get("authorization"));
  const failures = authFailures(auth, caller, { credential: secret });
  const none = async () => {};
  if (!secret) {
    if (req.headers.get("authorization")) {
      if (failures.fail()) return tooManyFailures();
      return challenge(kb, "Send the access token as: Authorization: Bearer <token>.", true);
    }
    // Requests from this machine may go without a token in a local run (REQUIRE_TOKEN unset); nobody else may.
    if (!caller.local || auth.requireToken) {
      return challenge(kb, "This MCP server requires an access token: send Authorization: Bearer <token>.", false);
    }
    return { principal: { via: "local", token: null, caller, actor: "local" }, limit: null, oauthKbs: null, touch: none };
  }
  if (isInternalSecret(secret)) {
    return { principal: { via: "internal", token: null, caller, actor: "app chat" }, limit: null, oauthKbs: null, touch: none };
  }
  let token: AccessToken;
  let oauthKbs: string[] | null = null;
  let touch: () => Promise<void>;
  if (isOAuthAccessToken(secret)) {
    const found = await authenticateOAuthToken(store, secret, kb);
    if ("invalid" in found) {
      if (found.guess && failures.fail()) return tooManyFailures();
      return challenge(kb, found.invalid, true);
    }
    ({ token, touch } = found);
    oauthKbs = found.kbs;
  } else {
    const found = await registry.authenticate(secret);
    // Even when tokens are optional, a presented one must be valid: a client should learn it is wrong.
    if (!found) {
      if (failures.fail()) return tooManyFailures();
      return challenge(kb, "The access token is invalid or has been revoked.", true);
    }
    token = found;
    touch = () => registry.touchToken(found.id);
  }
  // A person's token or OAuth grant reaches no further than that person's grants, as they are now.
  const accounts = await getAccountStore(store);
  const ownerId = (await accounts.owners(oauthKbs ? "oauth_grant" : "token")).get(token.id);
  let limit: AccessLimit | null = null;
  let ownerEmail: string | undefined;
  if (ownerId) {
    const owner = (await accounts.users()).get(ownerId);
    if (!owner) return challenge(kb, "The account this access token belongs to has been removed.", true);
    if (!(await ssoAccessAllowed(store, owner.id))) {
      return challenge(kb, "The single sign-on membership of this token's owner could not be confirmed; they must sign in again.", true);
    }
    limit = limitOf(owner);
    ownerEmail = owner.email;
    if (token.scope === "read-write" && !limit.write) token = { ...token, scope: "read" };
  }
  const actor = `${ownerEmail ? `${ownerEmail}, ` : ""}token "${token.name}"`;
  return {
    principal: { via: oauthKbs ? "oauth" : "token", token, caller, ...(ownerId ? { ownerId } : {}), actor },
    limit,
    oauthKbs,
    touch,
  };
}

/** The principal behind an MCP request and the knowledge bases it reaches, or the refusal to answer. */
export async function authenticateMcp(req: Request, options: McpAccessOptions): Promise<McpAccess> {
  const { kb, auth } = options;
  if (!isOriginAllowed(req.headers.get("origin"), req.headers.get("host"), auth.allowedOrigins)) {
    return refuse(403, "Forbidden: requests from this origin are not allowed (set ALLOWED_ORIGINS to allow it).");
  }
  const caller = callerOf(req, auth);
  const secret = bearerSecret(req.headers.get("authorization"));
  // Only the same wrong token is refused before it is checked: a valid one passes whatever its address has spent.
  if (secret && authFailures(auth, caller, { credential: secret }).locked()) return tooManyFailures();

  let store: Store;
  let registry: Registry;
  let who: Awaited<ReturnType<typeof authenticate>>;
  try {
    store = await options.getStore();
    registry = options.registry ?? (await getRegistry(store));
    who = await authenticate(req, options, store, registry, caller);
  } catch (err) {
    console.error("[mcp] authentication failed:", err);
    return refuse(500, "Internal error");
  }
  if ("refused" in who) return who;
  const { principal, limit, oauthKbs, touch } = who;

  // A local single-user run is not rate-limited; everyone else is, per token or per (trusted) client address.
  const localOpen = caller.local && !auth.requireToken;
  if (principal.via !== "internal" && !localOpen) {
    const decision = getRateLimiter(auth.rateLimitPerMinute).take(
      principal.token ? `token:${principal.token.id}` : addressKey(caller.address),
    );
    if (!decision.allowed) {
      return refuse(429, `Too many requests: at most ${auth.rateLimitPerMinute} a minute. Retry after ${decision.retryAfterSeconds}s.`, {
        "Retry-After": String(decision.retryAfterSeconds),
      });
    }
  }

  let catalog: readonly KbCatalogEntry[];
  try {
    catalog = await kbCatalog(store, registry);
  } catch (err) {
    console.error("[mcp] could not read the knowledge bases:", err);
    return refuse(500, "Internal error");
  }
  const known = new Set(catalog.map((e) => e.kb.name));
  const token = principal.token;
  if (token?.kb && kb !== undefined && token.kb !== kb) {
    return refuse(403, `Forbidden: this access token is limited to the knowledge base "${token.kb}".`);
  }
  if (kb !== undefined && !known.has(kb)) return refuse(404, `There is no knowledge base named "${kb}".`);
  if (oauthKbs && kb !== undefined && !oauthKbs.includes(kb)) {
    return refuse(403, `Forbidden: this access token does not give access to the knowledge base "${kb}".`);
  }
  if (limit && kb !== undefined && !mayRead(limit, kb)) {
    return refuse(403, `Forbidden: your account has no access to the knowledge base "${kb}".`);
  }
  let kbs: string[] | undefined = token?.kb ? [token.kb] : oauthKbs ? oauthKbs.filter((k) => known.has(k)) : undefined;
  if (limit) kbs = readableOf(limit, kbs ?? [...known]);
  if (kbs?.length === 0) {
    return refuse(
      403,
      "Forbidden: this access token reaches no knowledge base (they no longer exist, or its owner may no longer use them).",
    );
  }
  const filter = decodeCommaList(req.headers.get(KB_FILTER_HEADER));
  if (filter) {
    kbs = (kbs ?? [...known]).filter((k) => filter.includes(k));
    if (kbs.length === 0) return refuse(403, "Forbidden: none of the requested knowledge bases is available.");
  }
  store.background(touch(), "a token's use");
  let documents = decodeDocumentFilter(req.headers.get(DOCUMENT_FILTER_HEADER));
  // Only the app's own chat names a question's attachment (its route checked that the person asking owns it).
  if (documents?.length && principal.via !== "internal") {
    const found = await store.getDocuments(documents);
    documents = documents.filter((id) => !isAttachmentKb(found.get(id)?.kb ?? ""));
  }
  return { principal, scope: { kb, kbs, documents: documents ? [...documents] : undefined, catalog, store, registry } };
}
