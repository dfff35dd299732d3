import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { ClientRequestSchema, ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { audit as recordAudit } from "@/lib/audit/record";
import { isRecordedRefusal } from "@/lib/audit/refusal";
import { ssoAccessAllowed } from "@/lib/auth/accounts/sso-recheck";
import { getAccountStore } from "@/lib/auth/accounts/store";
import { type AuthSettings, resolveAuthSettings } from "@/lib/auth/config";
import { isInternalSecret } from "@/lib/auth/internal";
import { authenticateOAuthToken, bearerChallenge, isOAuthAccessToken } from "@/lib/auth/oauth/access";
import { isOriginAllowed } from "@/lib/auth/origin";
import { callerOf } from "@/lib/auth/peer";
import { addressKey } from "@/lib/auth/rate-limit";
import { authFailures, getRateLimiter } from "@/lib/auth/request";
import { type AccessLimit, limitOf, mayRead, readableOf } from "@/lib/auth/roles";
import { getConfig } from "@/lib/config";
import { type AccessToken, bearerSecret } from "@/lib/credentials/tokens";
import { readBodyBytes } from "@/lib/http/body";
import { getRegistry, kbCatalog, type Registry } from "@/lib/kb";
import { KB_FILTER_HEADER } from "@/lib/kb/names";
import { observeRequest } from "@/lib/metrics";
import { getStore } from "@/lib/store";
import { DOCUMENT_FILTER_HEADER, decodeCommaList, decodeDocumentFilter } from "@/lib/tools/scope";
import type { ToolAudit } from "./context";
import { createMcpServer, type KnowledgeServerOptions } from "./index";

export { KB_FILTER_HEADER };

export interface McpHttpOptions extends Pick<KnowledgeServerOptions, "kb" | "getStore"> {
  /** Access settings; default: from the environment. */
  auth?: AuthSettings;
  /** Default: the registry beside the store. */
  registry?: Registry;
}

export function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}) {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "Content-Type": "application/json", ...headers },
  });
}

/**
 * 401 with the challenge that starts OAuth discovery (RFC 9728 §5.1: resource_metadata, and the scopes); RFC
 * 6750 §3: no error code when the request carried no credentials.
 */
function unauthorized(message: string, invalid: boolean, kb: string | undefined) {
  return jsonRpcError(401, -32001, message, { "WWW-Authenticate": bearerChallenge(kb, invalid ? message : undefined) });
}

/** Request schemas of the MCP methods a client may call, by method name. */
const REQUEST_SCHEMAS = new Map<
  string,
  { safeParse(v: unknown): { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } } }
>(ClientRequestSchema.options.map((o) => [(o.shape.method as unknown as { value: string }).value, o]));

/** Far above any `kb://<kb>/<document-id>`; the SDK's template matcher fails (-32603) on megabyte URIs. */
const MAX_RESOURCE_URI_CHARS = 2048;

function readableIssues(issues: { path: PropertyKey[]; message: string }[]): string {
  return issues
    .slice(0, 5)
    .map((i) => {
      const at = i.path
        .filter((p) => p !== "params")
        .map(String)
        .join(".");
      return at ? `${at}: ${i.message}` : i.message;
    })
    .join("; ");
}

/**
 * Reads the body (at most `max` bytes, counted while reading; the transport's own 4 MiB bound does not apply to
 * a body passed to it parsed) and answers -32700 for one that is not JSON, and -32602 with a readable message
 * for a request whose params do not fit its method (the SDK would answer -32603 with a zod dump). Otherwise the
 * parsed body, for the transport.
 */
async function checkParams(req: Request, max: number): Promise<{ parsedBody: unknown } | Response> {
  const bytes = await readBodyBytes(req, max);
  if (!bytes) return jsonRpcError(413, -32600, `The request is larger than ${Math.round(max / 1024 / 1024)} MB.`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString("utf8"));
  } catch {
    return jsonRpcError(400, ErrorCode.ParseError, "Parse error: Invalid JSON");
  }
  for (const m of Array.isArray(parsed) ? parsed : [parsed]) {
    if (!m || typeof m !== "object" || typeof (m as { method?: unknown }).method !== "string" || !("id" in m)) continue;
    const { method, params, id } = m as { method: string; params?: unknown; id: unknown };
    const schema = REQUEST_SCHEMAS.get(method);
    const result = schema?.safeParse({ method, params });
    const uri = method === "resources/read" && result?.success ? String((params as { uri: unknown }).uri) : "";
    const problem =
      result && !result.success
        ? readableIssues(result.error?.issues ?? [])
        : uri.length > MAX_RESOURCE_URI_CHARS
          ? `uri: longer than ${MAX_RESOURCE_URI_CHARS} characters`
          : null;
    if (problem) {
      const message = `Invalid params for ${method}: ${problem}`;
      const safeId = typeof id === "string" || typeof id === "number" ? id : null;
      return Response.json({ jsonrpc: "2.0", id: safeId, error: { code: ErrorCode.InvalidParams, message } }, { status: 200 });
    }
  }
  return { parsedBody: parsed };
}

function kbFilter(req: Request): string[] | undefined {
  return decodeCommaList(req.headers.get(KB_FILTER_HEADER));
}

/**
 * Serves one Streamable HTTP request with a fresh, stateless MCP server (no sessions, JSON responses),
 * so any number of app instances can answer any request. Always answers JSON-RPC, never an HTML error page.
 *
 * In order: Origin (DNS rebinding) → who is asking (lib/auth/peer.ts) → bearer token: an access token of the
 * Connect dialog (`kbt_`) or an OAuth access token (`kboa_`, lib/auth/oauth/access.ts: only at the endpoint it
 * was issued for, with the knowledge bases chosen at consent) — 401 with the resource metadata URL; wrong ones
 * count against the failed-authentication budget, 429 → rate limit per token or client address (429; not for
 * a local run) → knowledge-base scope (path, token limit, X-KB-Filter; 403/404) → params check (-32602) → the
 * MCP exchange.
 *
 * Stateless means there is no session to push `notifications/tools/list_changed` on: the server declares
 * `tools.listChanged` and builds its tool list per request, so the next tools/list reflects any change.
 */
export async function handleMcpRequest(req: Request, options: McpHttpOptions = {}): Promise<Response> {
  const t0 = performance.now();
  const response = await handleTimed(req, options);
  observeRequest(options.kb ? "/api/mcp/[kb]" : "/api/mcp", response.status, performance.now() - t0, req.method);
  if (isRecordedRefusal(req, response.status)) await auditRefusal(req, options, response);
  return response;
}

/** A refused MCP request (403, 429, a 401 with a wrong token) goes to the audit log with its reason; never fails the answer. */
async function auditRefusal(req: Request, options: McpHttpOptions, response: Response): Promise<void> {
  try {
    const auth = options.auth ?? resolveAuthSettings();
    const body = (await response.clone().json()) as { error?: { message?: string } };
    await recordAudit(
      null,
      "access_denied",
      {
        actor: "mcp client",
        outcome: "denied",
        kb: options.kb ?? null,
        target: `${req.method} ${new URL(req.url).pathname}`,
        detail: `${response.status}: ${String(body.error?.message ?? "").slice(0, 200)}`,
        address: callerOf(req, auth).address,
      },
      await (options.getStore ?? getStore)(),
    );
  } catch (err) {
    console.error("[mcp] could not record a refused request:", err);
  }
}

async function handleTimed(req: Request, options: McpHttpOptions): Promise<Response> {
  const auth = options.auth ?? resolveAuthSettings();
  if (!isOriginAllowed(req.headers.get("origin"), req.headers.get("host"), auth.allowedOrigins)) {
    return jsonRpcError(403, -32000, "Forbidden: requests from this origin are not allowed (set ALLOWED_ORIGINS to allow it).");
  }

  // Requests from this machine may go without a token in a local run (REQUIRE_TOKEN unset); nobody else may.
  const caller = callerOf(req, auth);
  const localOpen = caller.local && !auth.requireToken;
  const secret = bearerSecret(req.headers.get("authorization"));
  const failures = authFailures(auth, caller, { credential: secret });
  const tooMany = () =>
    jsonRpcError(429, -32000, "Too many failed authentications from this address; try again in a minute.", { "Retry-After": "60" });

  let getStoreFn = options.getStore ?? getStore;
  let token: AccessToken | null = null;
  /** An OAuth grant's knowledge bases (chosen at consent) and its use recorder. */
  let oauth: { kbs: string[]; touch: () => Promise<void> } | null = null;
  let internal = false;
  /** The grants of the person who made the token or OAuth grant (null: made with the admin secret). */
  let ownerLimit: AccessLimit | null = null;
  let ownerId: string | undefined;
  let ownerEmail: string | undefined;
  let registry: Registry;
  try {
    // Only the same wrong token is refused before it is checked: a valid one passes whatever its address has spent.
    if (secret && failures.locked()) return tooMany();
    const store = await getStoreFn();
    getStoreFn = async () => store;
    registry = options.registry ?? (await getRegistry(store));
    if (secret) {
      if (isInternalSecret(secret)) internal = true;
      else if (isOAuthAccessToken(secret)) {
        const found = await authenticateOAuthToken(store, secret, options.kb);
        if ("invalid" in found) {
          if (found.guess && failures.fail()) return tooMany();
          return unauthorized(found.invalid, true, options.kb);
        }
        token = found.token;
        oauth = found;
      } else {
        token = await registry.authenticate(secret);
        // Even when tokens are optional, a presented one must be valid: a client should learn it is wrong.
        if (!token) {
          if (failures.fail()) return tooMany();
          return unauthorized("The access token is invalid or has been revoked.", true, options.kb);
        }
      }
    } else if (req.headers.get("authorization")) {
      if (failures.fail()) return tooMany();
      return unauthorized("Send the access token as: Authorization: Bearer <token>.", true, options.kb);
    } else if (!localOpen) {
      return unauthorized("This MCP server requires an access token: send Authorization: Bearer <token>.", false, options.kb);
    }
    if (token) {
      // A person's token or OAuth grant reaches no further than that person's grants, as they are now.
      const accounts = await getAccountStore(await getStoreFn());
      ownerId = (await accounts.owners(oauth ? "oauth_grant" : "token")).get(token.id);
      if (ownerId) {
        const owner = (await accounts.users()).get(ownerId);
        if (!owner) return unauthorized("The account this access token belongs to has been removed.", true, options.kb);
        if (!(await ssoAccessAllowed(await getStoreFn(), owner.id))) {
          return unauthorized(
            "The single sign-on membership of this token's owner could not be confirmed; they must sign in again.",
            true,
            options.kb,
          );
        }
        ownerLimit = limitOf(owner);
        ownerEmail = owner.email;
        if (token.scope === "read-write" && !ownerLimit.write) token = { ...token, scope: "read" };
      }
    }
  } catch (err) {
    console.error("[mcp] authentication failed:", err);
    return jsonRpcError(500, ErrorCode.InternalError, "Internal error");
  }

  // A local single-user run is not rate-limited; everyone else is, per token or per (trusted) client address.
  if (!internal && !localOpen) {
    const decision = getRateLimiter(auth.rateLimitPerMinute).take(token ? `token:${token.id}` : addressKey(caller.address));
    if (!decision.allowed) {
      return jsonRpcError(
        429,
        -32000,
        `Too many requests: at most ${auth.rateLimitPerMinute} a minute. Retry after ${decision.retryAfterSeconds}s.`,
        {
          "Retry-After": String(decision.retryAfterSeconds),
        },
      );
    }
  }

  if (req.method !== "POST") {
    // Stateless: there is no session to open a server-sent stream on (GET) or to end (DELETE).
    return jsonRpcError(405, -32000, "Method not allowed: send MCP JSON-RPC messages with POST.", {
      Allow: "POST",
    });
  }

  const server = await (async () => {
    const store = await getStoreFn();
    const catalog = await kbCatalog(store, registry);
    const known = new Set(catalog.map((e) => e.kb.name));
    if (token?.kb && options.kb !== undefined && token.kb !== options.kb) {
      return jsonRpcError(403, -32000, `Forbidden: this access token is limited to the knowledge base "${token.kb}".`);
    }
    if (options.kb !== undefined && !known.has(options.kb)) {
      return jsonRpcError(404, -32000, `There is no knowledge base named "${options.kb}".`);
    }
    if (oauth && options.kb !== undefined && !oauth.kbs.includes(options.kb)) {
      return jsonRpcError(403, -32000, `Forbidden: this access token does not give access to the knowledge base "${options.kb}".`);
    }
    if (ownerLimit && options.kb !== undefined && !mayRead(ownerLimit, options.kb)) {
      return jsonRpcError(403, -32000, `Forbidden: your account has no access to the knowledge base "${options.kb}".`);
    }
    let kbs: string[] | undefined = token?.kb ? [token.kb] : oauth ? oauth.kbs.filter((k) => known.has(k)) : undefined;
    if (ownerLimit) kbs = readableOf(ownerLimit, kbs ?? [...known]);
    if (kbs?.length === 0)
      return jsonRpcError(
        403,
        -32000,
        "Forbidden: this access token reaches no knowledge base (they no longer exist, or its owner may no longer use them).",
      );
    const filter = kbFilter(req);
    if (filter) {
      kbs = (kbs ?? [...known]).filter((k) => filter.includes(k));
      if (kbs.length === 0) return jsonRpcError(403, -32000, "Forbidden: none of the requested knowledge bases is available.");
    }
    if (token) {
      (oauth ? oauth.touch() : registry.touchToken(token.id)).catch((err) => console.error("[mcp] could not record token use:", err));
    }
    const actor = token ? `${ownerEmail ? `${ownerEmail}, ` : ""}token "${token.name}"` : internal ? "app chat" : "local";
    const audit: ToolAudit = (action, fields) =>
      void recordAudit(null, action, { ...fields, actor, actorId: ownerId, address: caller.address }, store).catch((err) =>
        console.error("[mcp] could not record an audit event:", err),
      );
    const documents = decodeDocumentFilter(req.headers.get(DOCUMENT_FILTER_HEADER));
    return createMcpServer({ kb: options.kb, kbs, documents, token, catalog, getStore: getStoreFn, audit });
  })().catch((err: unknown) => {
    console.error("[mcp] could not build the server:", err);
    return jsonRpcError(500, ErrorCode.InternalError, "Internal error");
  });
  if (server instanceof Response) return server;

  const checked = await checkParams(req, getConfig().maxUploadBytes * 2 + 1024 * 1024);
  if (checked instanceof Response) {
    server.close().catch(() => {});
    return checked;
  }
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  try {
    await server.connect(transport);
    return await transport.handleRequest(req, checked);
  } catch (err) {
    console.error("[mcp] request failed:", err);
    return jsonRpcError(500, ErrorCode.InternalError, "Internal error");
  } finally {
    // With JSON responses the body is complete once handleRequest resolves.
    server.close().catch(() => {});
  }
}
