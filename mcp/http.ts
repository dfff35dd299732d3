import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { resolveAuthSettings, type AuthSettings } from "@/lib/auth/config";
import { isInternalSecret } from "@/lib/auth/internal";
import { isOriginAllowed } from "@/lib/auth/origin";
import { clientAddress, getRateLimiter } from "@/lib/auth/request";
import { bearerSecret, type AccessToken } from "@/lib/auth/tokens";
import { getRegistry, kbCatalog, type Registry } from "@/lib/kb";
import { KB_FILTER_HEADER } from "@/lib/kb/names";
import { getStore } from "@/lib/store";
import { createMcpServer, type KnowledgeServerOptions } from "./index";

export { KB_FILTER_HEADER };

export interface McpHttpOptions extends Pick<KnowledgeServerOptions, "kb" | "getStore"> {
  /** Access settings; default: from the environment. */
  auth?: AuthSettings;
  /** Default: the registry beside the store. */
  registry?: Registry;
}

function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}) {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "Content-Type": "application/json", ...headers },
  });
}

function unauthorized(message: string, invalid: boolean) {
  // RFC 6750 §3: no error code when the request carried no credentials.
  const challenge = invalid
    ? `Bearer realm="mcp", error="invalid_token", error_description="${message.replace(/"/g, "'")}"`
    : 'Bearer realm="mcp"';
  return jsonRpcError(401, -32001, message, { "WWW-Authenticate": challenge });
}

function kbFilter(req: Request): string[] | undefined {
  const raw = req.headers.get(KB_FILTER_HEADER);
  if (raw === null) return undefined;
  return raw
    .split(",")
    .map((s) => {
      try {
        return decodeURIComponent(s.trim());
      } catch {
        return "";
      }
    })
    .filter(Boolean);
}

/**
 * Serves one Streamable HTTP request with a fresh, stateless MCP server (no sessions, JSON responses),
 * so any number of app instances can answer any request. Always answers JSON-RPC, never an HTML error page.
 *
 * In order: Origin (DNS rebinding) → bearer token (401) → rate limit per token or client address (429) →
 * knowledge-base scope (path, token limit, X-KB-Filter; 403/404) → the MCP exchange.
 *
 * Stateless means there is no session to push `notifications/tools/list_changed` on: the server declares
 * `tools.listChanged` and builds its tool list per request, so the next tools/list reflects any change.
 */
export async function handleMcpRequest(req: Request, options: McpHttpOptions = {}): Promise<Response> {
  const auth = options.auth ?? resolveAuthSettings();
  if (!isOriginAllowed(req.headers.get("origin"), req.url, auth.allowedOrigins)) {
    return jsonRpcError(403, -32000, "Forbidden: requests from this origin are not allowed (set ALLOWED_ORIGINS to allow it).");
  }

  let getStoreFn = options.getStore ?? getStore;
  let token: AccessToken | null = null;
  let internal = false;
  let registry: Registry;
  try {
    const store = await getStoreFn();
    getStoreFn = async () => store;
    registry = options.registry ?? (await getRegistry(store.uri));
    const secret = bearerSecret(req.headers.get("authorization"));
    if (secret) {
      if (isInternalSecret(secret)) internal = true;
      else {
        token = await registry.authenticate(secret);
        // Even when tokens are optional, a presented one must be valid: a client should learn it is wrong.
        if (!token) return unauthorized("The access token is invalid or has been revoked.", true);
      }
    } else if (req.headers.get("authorization")) {
      return unauthorized("Send the access token as: Authorization: Bearer <token>.", true);
    } else if (auth.requireToken) {
      return unauthorized("This MCP server requires an access token: send Authorization: Bearer <token>.", false);
    }
  } catch (err) {
    console.error("[mcp] authentication failed:", err);
    return jsonRpcError(500, ErrorCode.InternalError, "Internal error");
  }

  if (!internal) {
    const decision = getRateLimiter(auth.rateLimitPerMinute).take(token ? `token:${token.id}` : `ip:${clientAddress(req)}`);
    if (!decision.allowed) {
      return jsonRpcError(429, -32000, `Too many requests: at most ${auth.rateLimitPerMinute} a minute. Retry after ${decision.retryAfterSeconds}s.`, {
        "Retry-After": String(decision.retryAfterSeconds),
      });
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
    let kbs: string[] | undefined = token?.kb ? [token.kb] : undefined;
    const filter = kbFilter(req);
    if (filter) {
      kbs = (kbs ?? [...known]).filter((k) => filter.includes(k));
      if (kbs.length === 0) return jsonRpcError(403, -32000, "Forbidden: none of the requested knowledge bases is available.");
    }
    if (token) registry.touchToken(token.id).catch((err) => console.error("[mcp] could not record token use:", err));
    return createMcpServer({ kb: options.kb, kbs, token, catalog, getStore: getStoreFn });
  })().catch((err: unknown) => {
    console.error("[mcp] could not build the server:", err);
    return jsonRpcError(500, ErrorCode.InternalError, "Internal error");
  });
  if (server instanceof Response) return server;

  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  try {
    await server.connect(transport);
    return await transport.handleRequest(req);
  } catch (err) {
    console.error("[mcp] request failed:", err);
    return jsonRpcError(500, ErrorCode.InternalError, "Internal error");
  } finally {
    // With JSON responses the body is complete once handleRequest resolves.
    server.close().catch(() => {});
  }
}
