import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { AuditAction } from "@/lib/audit/types";
import type { AccessToken } from "@/lib/credentials/tokens";
import type { KbCatalogEntry } from "@/lib/kb";
import { kbNameSchema } from "@/lib/kb/names";
import { log } from "@/lib/log";
import { memoized } from "@/lib/memo";
import { countError, observeTool } from "@/lib/metrics";
import type { Store } from "@/lib/store";
import { isAttachmentKb, scopedDocuments } from "@/lib/tools/scope";
import { AppError } from "@/lib/types";

/** Options for one MCP server instance (the HTTP route builds one per request). */
export interface KnowledgeServerOptions {
  /** Restrict every tool to this knowledge base (`/api/mcp/<kb>`). */
  kb?: string;
  /** Restrict every tool to these knowledge bases (a token limited to one, the chat's selection). Never empty. */
  kbs?: readonly string[];
  /** Restrict searches to these documents (the chat's picked sources, lib/tools/scope.ts). */
  documents?: readonly string[];
  /** Where tools get the store; the HTTP route passes one that first waits for start-up indexing. */
  getStore?: () => Promise<Store>;
  /** The authenticated access token of the request, if any; write tools require a read-write one. */
  token?: AccessToken | null;
  /**
   * The knowledge bases (with document titles) this server knows, for the per-knowledge-base search tools,
   * the `kb` enum of search_knowledge and the prompt. Without it only the generic tools are served.
   */
  catalog?: readonly KbCatalogEntry[];
  /** Records a change in the audit log with this request's actor (the HTTP route sets it). */
  audit?: ToolAudit;
}

export type ToolAudit = (action: AuditAction, fields: { kb: string; target: string; detail: string }) => void;

/** What every tool handler receives besides its arguments. */
export interface ToolContext {
  /** Knowledge bases the tools may touch; undefined = all. */
  kbs?: readonly string[];
  /** Documents searches are limited to; undefined = all. */
  documents?: readonly string[];
  getStore: () => Promise<Store>;
  token: AccessToken | null;
  /** Catalog entries in scope (already filtered by `kbs`). */
  catalog?: readonly KbCatalogEntry[];
  audit?: ToolAudit;
}

/**
 * A tool's optional `kb` argument: one of the server's knowledge bases when it lists them, else any name that
 * follows the knowledge-base name rule.
 */
export function kbArgument(kbNames: readonly string[] | undefined, describe: string) {
  if (kbNames && kbNames.length > 0) {
    const names = [...kbNames] as [string, ...string[]];
    return z
      .enum(names, { error: `kb must be one of ${quoted(names)}` })
      .optional()
      .describe(describe);
  }
  return kbNameSchema.optional().describe(describe);
}

/**
 * A tool's input schema for a list of knowledge-base names, made once per list rather than for every request's
 * server: building the zod schemas was a third of what making a server cost.
 */
export function perKbNames<T>(make: (kbNames?: readonly string[]) => T): (kbNames?: readonly string[]) => T {
  return memoized(make, (kbNames) => (kbNames?.length ? kbNames.join("\u0000") : ""), 64);
}

/** The scope of a server: `kb` and `kbs` intersected. */
export function scopeOf(options: Pick<KnowledgeServerOptions, "kb" | "kbs">): readonly string[] | undefined {
  if (options.kb !== undefined && options.kbs !== undefined) return options.kbs.filter((k) => k === options.kb);
  if (options.kb !== undefined) return [options.kb];
  return options.kbs;
}

/** The names of the knowledge bases this server's catalog lists (undefined without a catalog), for the tools' kb enums. */
export function catalogKbNames(ctx: Pick<ToolContext, "catalog">): string[] | undefined {
  return ctx.catalog?.map((e) => e.kb.name);
}

/**
 * The documents a search tool runs over: those its `documents` argument asks for within the server's (the chat's
 * picks), undefined = all. An attachment is searched only when the server's list names it (the app's own chat,
 * lib/auth/mcp-access.ts): a tool argument never reaches one.
 */
export async function searchedDocuments(ctx: Pick<ToolContext, "documents">, store: Store, requested?: readonly string[]) {
  const documents = scopedDocuments(requested, ctx.documents);
  if (!documents?.length || ctx.documents) return documents;
  const found = await store.getDocuments(documents);
  return documents.filter((id) => !isAttachmentKb(found.get(id)?.kb ?? ""));
}

export function inScope(ctx: Pick<ToolContext, "kbs" | "documents">, kb: string, documentId?: string): boolean {
  // A question's attachment: only the app's own chat reaches it, when the question names it (lib/auth/mcp-access.ts).
  if (isAttachmentKb(kb)) return documentId !== undefined && (ctx.documents?.includes(documentId) ?? false);
  return !ctx.kbs || ctx.kbs.includes(kb);
}

/** A tool result the client shows as an error (`isError: true`), so a model can read it and retry. */
export function toolError(message: string) {
  return { isError: true as const, content: [{ type: "text" as const, text: message }] };
}

/** A tool's answer: `text` for the model, and the same as structured content for clients that read it. */
export function toolResult(text: string, structuredContent: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text }], structuredContent };
}

function quoted(kbs: readonly string[]): string {
  return kbs.map((k) => `"${k}"`).join(", ");
}

/**
 * The knowledge base(s) a call may touch: the requested one if the server's scope allows it, else the whole
 * scope (one name, or a list), or undefined for "all". Returns an error message for a kb outside the scope.
 */
function effectiveKb(ctx: Pick<ToolContext, "kbs">, requested: string | undefined): { kb?: string | string[]; error?: string } {
  if (!ctx.kbs) return { kb: requested };
  if (ctx.kbs.length === 0) return { error: "This server gives access to no knowledge base." };
  if (requested !== undefined && !ctx.kbs.includes(requested)) {
    return ctx.kbs.length === 1
      ? { error: `This server only serves the knowledge base "${ctx.kbs[0]}"; omit kb or pass "${ctx.kbs[0]}".` }
      : { error: `This server only serves the knowledge bases ${quoted(ctx.kbs)}; omit kb or pass one of them.` };
  }
  if (requested !== undefined) return { kb: requested };
  return { kb: ctx.kbs.length === 1 ? ctx.kbs[0] : [...ctx.kbs] };
}

/**
 * Runs a tool body; a failure becomes a tool error the model can read (AppError messages are written for
 * users; anything else is logged and reported with the tool's name) instead of a protocol error. Every call
 * is timed into /metrics (per tool and outcome) and logged with the request's id.
 */
export function guarded<A>(tool: string, body: (args: A) => Promise<CallToolResult>): (args: A) => Promise<CallToolResult> {
  return async (args) => {
    const t0 = performance.now();
    const logger = log("mcp");
    const ms = () => Math.round((performance.now() - t0) * 10) / 10;
    try {
      const result = await body(args);
      const outcome = result.isError ? "tool_error" : "ok";
      observeTool(tool, outcome, performance.now() - t0);
      if (result.isError) countError("tool_error");
      logger.info({ tool, outcome, ms: ms() }, "tool call");
      return result;
    } catch (err) {
      if (err instanceof AppError) {
        observeTool(tool, "tool_error", performance.now() - t0);
        countError(err.code);
        logger.info({ tool, outcome: "tool_error", code: err.code, ms: ms() }, "tool call");
        return toolError(err.message);
      }
      observeTool(tool, "error", performance.now() - t0);
      countError("internal");
      logger.error(
        { tool, outcome: "error", ms: ms(), err: err instanceof Error ? { message: err.message, stack: err.stack } : String(err) },
        "tool call failed",
      );
      return toolError(`${tool} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
}

/** What a reading tool's call reads: the knowledge base(s) it may read (undefined: all) and the store. */
export interface ReadTarget {
  kb: string | string[] | undefined;
  store: Store;
}

/**
 * `guarded` for a reading tool: the call runs with the knowledge base(s) it may read (its `kb` argument, if it
 * has one, within the server's scope) and the store, or is refused (see effectiveKb).
 */
export function guardedRead<A extends object>(
  tool: string,
  ctx: Pick<ToolContext, "kbs" | "getStore">,
  body: (args: A, target: ReadTarget) => Promise<CallToolResult>,
): (args: A) => Promise<CallToolResult> {
  return guarded<A>(tool, async (args) => {
    const scope = effectiveKb(ctx, "kb" in args && typeof args.kb === "string" ? args.kb : undefined);
    return scope.error ? toolError(scope.error) : body(args, { kb: scope.kb, store: await ctx.getStore() });
  });
}
