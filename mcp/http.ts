import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { ClientRequestSchema, ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { audit as recordAudit } from "@/lib/audit/record";
import { isRecordedRefusal } from "@/lib/audit/refusal";
import { type AuthSettings, resolveAuthSettings } from "@/lib/auth/config";
import { authenticateMcp, type McpRefusal } from "@/lib/auth/mcp-access";
import { callerOf } from "@/lib/auth/peer";
import { getConfig } from "@/lib/config";
import { readBodyBytes } from "@/lib/http/body";
import type { Registry } from "@/lib/kb";
import { KB_FILTER_HEADER } from "@/lib/kb/names";
import { observeRequest } from "@/lib/metrics";
import { getStore } from "@/lib/store";
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

/** A refusal of the access step as the JSON-RPC error a client reads (401: -32001, the MCP auth error). */
function refusalResponse({ status, message, headers }: McpRefusal): Response {
  const code = status === 401 ? -32001 : status === 500 ? ErrorCode.InternalError : -32000;
  return jsonRpcError(status, code, message, headers);
}

/**
 * Serves one Streamable HTTP request with a fresh, stateless MCP server (no sessions, JSON responses),
 * so any number of app instances can answer any request. Always answers JSON-RPC, never an HTML error page.
 *
 * In order: who is asking and what they may reach (lib/auth/mcp-access.ts: a principal and its knowledge-base
 * scope, or the refusal, the 401 challenge among them) → POST only (405) → params check (-32602) → the MCP
 * exchange.
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
  const access = await authenticateMcp(req, {
    kb: options.kb,
    auth: options.auth ?? resolveAuthSettings(),
    getStore: options.getStore ?? getStore,
    registry: options.registry,
  });
  if ("refused" in access) return refusalResponse(access.refused);
  if (req.method !== "POST") {
    // Stateless: there is no session to open a server-sent stream on (GET) or to end (DELETE).
    return jsonRpcError(405, -32000, "Method not allowed: send MCP JSON-RPC messages with POST.", { Allow: "POST" });
  }

  const { principal, scope } = access;
  const { store } = scope;
  const audit: ToolAudit = (action, fields) =>
    store.background(
      recordAudit(
        null,
        action,
        { ...fields, actor: principal.actor, actorId: principal.ownerId, address: principal.caller.address },
        store,
      ),
      "an audit event",
    );
  let server: ReturnType<typeof createMcpServer>;
  try {
    const { kb, kbs, documents, catalog } = scope;
    server = createMcpServer({ kb, kbs, documents, token: principal.token, catalog, getStore: async () => store, audit });
  } catch (err) {
    console.error("[mcp] could not build the server:", err);
    return jsonRpcError(500, ErrorCode.InternalError, "Internal error");
  }

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
