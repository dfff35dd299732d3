import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, isJSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { searchToolNames } from "@/lib/kb/names";
import { newRequestId, withRequestId } from "@/lib/log";
import { countError } from "@/lib/metrics";
import { getStore } from "@/lib/store";
import { WRITE_TOOLS } from "@/lib/tools/names";
import packageJson from "@/package.json";
import * as addDocument from "./add-document";
import * as addFaq from "./add-faq";
import * as addSource from "./add-source";
import { registerCitationView } from "./citation-view";
import { type KnowledgeServerOptions, scopeOf, type ToolContext } from "./context";
import * as deleteDocument from "./delete-document";
import * as deleteFaq from "./delete-faq";
import { registerFaqResources } from "./faq-resources";
import * as fetchTool from "./fetch";
import * as listDocuments from "./list-documents";
import * as listSources from "./list-sources";
import { registerPrompts } from "./prompts";
import * as readDocument from "./read-document";
import { registerDocumentResources } from "./resources";
import * as search from "./search";
import * as searchFaq from "./search-faq";
import { registerKbSearchTools } from "./search-kb";
import * as searchKnowledge from "./search-knowledge";
import { writeRefusal } from "./write-access";

export type { KnowledgeServerOptions } from "./context";

const SERVER_NAME = "knowledge-base";
const SERVER_VERSION: string = packageJson.version;

/**
 * One JSON Schema validator (Ajv) for all the per-request servers: the SDK would build a new Ajv instance,
 * formats and meta-schemas included, for each one, a third of what making a server costs.
 */
const jsonSchemaValidator = new AjvJsonSchemaValidator();

/**
 * The SDK answers a call to an unknown tool with an `isError` result; the MCP spec (2025-11-25, Tools › Error
 * handling) lists unknown tools as a protocol error. This server answers them with JSON-RPC -32602.
 */
class KnowledgeMcpServer extends McpServer {
  /** Every tool this caller may call, recorded as it is registered (see registerTool below). */
  readonly toolNames = new Set<string>();
  /** Write tools this caller may not call (no read-write token): not listed; a call gets the reason. */
  readonly refused = new Map<string, string>();
  /** One server per HTTP request: its log lines carry this id. */
  readonly reqId = newRequestId();

  constructor(
    info: ConstructorParameters<typeof McpServer>[0],
    options: ConstructorParameters<typeof McpServer>[1],
    private readonly ctx: ToolContext,
  ) {
    super(info, options);
  }

  override registerTool: McpServer["registerTool"] = (name, config, cb) => {
    const tool = super.registerTool(name, config, cb);
    const refusal = WRITE_TOOLS.has(name) ? writeRefusal(this.ctx, name) : null;
    if (refusal) {
      tool.disable();
      this.refused.set(name, refusal);
    } else this.toolNames.add(name);
    return tool;
  };

  override async connect(transport: Transport): Promise<void> {
    await super.connect(transport);
    const inner = transport.onmessage;
    transport.onmessage = (message, extra) =>
      withRequestId(() => {
        if (isJSONRPCRequest(message) && message.method === "tools/call") {
          const tool = (message.params as { name?: unknown } | undefined)?.name;
          if (typeof tool === "string" && !this.toolNames.has(tool)) {
            countError(this.refused.has(tool) ? "forbidden" : "unknown_tool");
            const error = {
              code: ErrorCode.InvalidParams,
              message: this.refused.get(tool) ?? `Unknown tool: ${tool}. Available tools: ${[...this.toolNames].join(", ")}.`,
            };
            void transport.send({ jsonrpc: "2.0", id: message.id, error }).catch((err) => this.server.onerror?.(err));
            return;
          }
        }
        inner?.(message, extra);
      }, this.reqId);
  }
}

function instructions(ctx: ToolContext, kbTools: string[]): string {
  const perKb = kbTools.length
    ? ` Each knowledge base also has its own search tool (${kbTools.join(", ")}), whose description says what it holds: ` +
      "prefer it when the question is clearly about that subject."
    : "";
  const scope = ctx.kbs ? ` This server serves only: ${ctx.kbs.join(", ")}.` : "";
  return (
    "Knowledge base of this organisation's documents. Use search_knowledge to find passages that answer a " +
    "question and cite them by their [number]; read_document to read more around a passage; list_documents " +
    `to see what is covered.${perKb}${scope} Documents are also resources (kb://<kb>/<document-id>), and the ` +
    "prompt answer_with_citations shows how to answer with citations. The write tools (add_document, " +
    "delete_document, add_faq, delete_faq) and the source tools (add_source, list_sources) are listed only for a " +
    "read-write access token."
  );
}

/** Every tool, resource and prompt of the server, registered in this order. */
const REGISTRATIONS: ((server: McpServer, ctx: ToolContext) => unknown)[] = [
  searchKnowledge.registerSearchKnowledge,
  registerKbSearchTools,
  listDocuments.registerListDocuments,
  readDocument.registerReadDocument,
  addDocument.registerAddDocument,
  deleteDocument.registerDeleteDocument,
  registerDocumentResources,
  registerCitationView,
  registerPrompts,
  searchFaq.registerSearchFaq,
  addFaq.registerAddFaq,
  deleteFaq.registerDeleteFaq,
  registerFaqResources,
  addSource.registerAddSource,
  listSources.registerListSources,
  search.registerSearch,
  fetchTool.registerFetch,
];

/**
 * A fresh MCP server exposing the knowledge-base tools, resources and prompt. Cheap; the HTTP route makes
 * one per request (stateless), from a catalog read for that request, so the tool list always reflects the
 * knowledge bases as they are now.
 */
export function createMcpServer(options: KnowledgeServerOptions = {}): McpServer {
  const kbs = scopeOf(options);
  const catalog = options.catalog && kbs ? options.catalog.filter((e) => kbs.includes(e.kb.name)) : options.catalog;
  const ctx: ToolContext = {
    kbs,
    documents: options.documents,
    getStore: options.getStore ?? getStore,
    token: options.token ?? null,
    catalog,
    audit: options.audit,
  };
  const kbToolNames = [...searchToolNames((catalog ?? []).map((e) => e.kb.name)).values()];
  const server = new KnowledgeMcpServer(
    { name: SERVER_NAME, version: SERVER_VERSION },
    {
      instructions: instructions(ctx, kbToolNames),
      jsonSchemaValidator,
    },
    ctx,
  );
  for (const register of REGISTRATIONS) register(server, ctx);
  return server;
}
