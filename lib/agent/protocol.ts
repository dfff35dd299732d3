/**
 * What /api/chat and the chat UI agree on: the UI message type with its data parts, and the error
 * shape. Types and pure helpers only, so the browser bundle can import it.
 */
import type { UIMessage } from "ai";
import type { Citation } from "./citations";
import type { CitationCheck } from "./support";

export type { Citation } from "./citations";

/** `data-citations`: every chunk retrieved in the turn with its turn-wide number (re-sent as it grows). */
interface CitationsData {
  citations: Citation[];
}

/** A suggested next question; `from`: the chunk the offline suggestion was built from (it answers it). */
export interface FollowUp {
  question: string;
  from?: string;
}

/** `data-followups`: two or three suggested next questions, sent after the answer (lib/agent/follow-ups.ts). */
interface FollowUpsData {
  questions: FollowUp[];
}

/** A file attached to a question: added to the library as this document. */
export interface Attachment {
  id: string;
  name: string;
}

/** `messageMetadata` of an answer (mode, model) or of a question (the scope it was asked with). */
export interface ChatMetadata {
  /** "offline": the embedded extractive answerer; "llm": an OpenAI-compatible model. */
  mode?: "offline" | "llm";
  model?: string;
  /** A question's sources: the documents it was limited to (empty = every document); a regenerate or edit re-asks with them. */
  documents?: string[];
  /** Files attached to a question. */
  attachments?: Attachment[];
}

/** `data-check`: the citation check of the finished answer (lib/agent/support.ts): moved citations, unsupported sentences. */
export type { CitationCheck } from "./support";

export type ChatUIMessage = UIMessage<ChatMetadata, { citations: CitationsData; check: CitationCheck; followups: FollowUpsData }>;

type ChatErrorCode =
  | "model_unreachable"
  | "invalid_key"
  | "model_not_found"
  | "rate_limited"
  | "model_error"
  | "mcp_unavailable"
  | "bad_request"
  | "unauthorized"
  | "forbidden"
  | "internal";

export interface ChatError {
  code: ChatErrorCode;
  /** English, for logs and as a fallback; the UI shows its own localized text for the code. */
  message: string;
  /** Where it happened (endpoint URL, model name), when that helps the user fix it. */
  detail?: string;
}

/** Reads a ChatError back from an error message (JSON body or stream errorText); null if it is not one. */
export function parseChatError(text: string | undefined): ChatError | null {
  if (!text) return null;
  try {
    const v = JSON.parse(text) as Record<string, unknown>;
    const o = (v && typeof v.error === "object" && v.error ? v.error : v) as Record<string, unknown>;
    if (typeof o.code !== "string" || typeof o.message !== "string") return null;
    return { code: o.code as ChatErrorCode, message: o.message, ...(typeof o.detail === "string" ? { detail: o.detail } : {}) };
  } catch {
    return null;
  }
}
