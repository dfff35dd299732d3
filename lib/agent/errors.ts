/**
 * Chat failures as stable codes the UI can turn into a message the user can act on.
 * The route sends them as JSON: in the body of a non-2xx response (before streaming starts) or as the
 * `errorText` of the UI message stream's error chunk (once it has).
 */

import { MCPClientError } from "@ai-sdk/mcp";
import { APICallError } from "@ai-sdk/provider";
import { RetryError } from "ai";
import type { ChatError } from "./protocol";

export type { ChatError } from "./protocol";

export interface ErrorContext {
  baseURL?: string;
  model?: string;
  mcpUrl?: string;
}

const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_SOCKET",
]);

/** The error and its causes, outermost first (RetryError contributes its last attempt). */
function chain(err: unknown): unknown[] {
  const out: unknown[] = [];
  let cur: unknown = err;
  for (let i = 0; cur != null && i < 8; i++) {
    out.push(cur);
    cur = RetryError.isInstance(cur) ? cur.lastError : (cur as { cause?: unknown }).cause;
  }
  return out;
}

function isNetworkFailure(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  if (typeof code === "string" && NETWORK_CODES.has(code)) return true;
  return e instanceof TypeError && /fetch failed|network/i.test(e.message);
}

export function classifyChatError(err: unknown, ctx: ErrorContext = {}): ChatError {
  const errors = chain(err);
  if (errors.some((e) => e instanceof ChatFailure)) return (errors.find((e) => e instanceof ChatFailure) as ChatFailure).info;
  if (errors.some((e) => MCPClientError.isInstance(e))) {
    return { code: "mcp_unavailable", message: "The knowledge-base MCP endpoint is not responding.", detail: ctx.mcpUrl };
  }
  const api = errors.find((e) => APICallError.isInstance(e)) as APICallError | undefined;
  if (api) {
    const status = api.statusCode;
    if (status === 401 || status === 403) {
      return { code: "invalid_key", message: "The model provider rejected the API key.", detail: ctx.baseURL };
    }
    if (status === 404) return { code: "model_not_found", message: "The model was not found at the provider.", detail: ctx.model };
    if (status === 429) return { code: "rate_limited", message: "The model provider is rate-limiting requests." };
    if (status === undefined) return { code: "model_unreachable", message: "Cannot reach the language model.", detail: ctx.baseURL };
    return { code: "model_error", message: `The language model returned an error (HTTP ${status}).`, detail: ctx.model };
  }
  if (errors.some(isNetworkFailure)) return { code: "model_unreachable", message: "Cannot reach the language model.", detail: ctx.baseURL };
  return { code: "internal", message: "Something went wrong while answering." };
}

/** A failure the chat code has already classified. */
class ChatFailure extends Error {
  constructor(public readonly info: ChatError) {
    super(info.message);
    this.name = "ChatFailure";
  }
}
