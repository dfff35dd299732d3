/**
 * The app's input limits and the contracts several parts build, defined once: what the HTTP API, the MCP
 * tools and prompts and the chat accept, and the resource URIs of documents and FAQ entries (the full-text
 * column is FTS_COLUMN in lib/store/schema). Each limit is checked once, where input comes in (a route's or a
 * tool's schema); the code behind trusts it. Browser-safe (zod only).
 *
 * Where two places used to differ, the more permissive bound was kept (no test depended on the stricter one).
 */
import { z } from "zod";

/** A search query: the search tools (search_knowledge, search, search_faq) and the FAQ list's search. */
export const MAX_QUERY_CHARS = 1000;

/**
 * A question: to the chat (POST /api/chat) and to the MCP prompt (which was 4,000). Longer than a search
 * query: the chat fits what it sends to the search tool within MAX_QUERY_CHARS (fitQuery, lib/retrieve/limits),
 * so no question the chat accepts fails inside a tool.
 */
export const MAX_QUESTION_CHARS = 8000;

/** A FAQ entry's question and each of its phrasings (also the cut of a generated question). */
export const MAX_FAQ_QUESTION_CHARS = 500;

/**
 * A document, chunk or FAQ id given to a tool or a route. The app's are far shorter (24 hex characters for a
 * document, `<document id>:<n>` for a chunk, `faq:<64 hex>` for a FAQ entry); the HTTP routes allowed 128, the
 * tools 200: 200 for both.
 */
export const MAX_ID_CHARS = 200;

/** A document's title (the upload form allowed 300, add_document 200: 300 for both). */
export const MAX_DOCUMENT_TITLE_CHARS = 300;

/** A document's author. */
export const MAX_AUTHOR_CHARS = 200;

/** An id given to a tool: trimmed, non-empty, at most MAX_ID_CHARS, without control characters. */
export const idField = (field: string) =>
  z
    .string({ error: (i) => (i.input === undefined ? `${field} is required` : `${field} must be a string`) })
    .trim()
    .min(1, `${field} must not be empty`)
    .max(MAX_ID_CHARS, `${field} must be at most ${MAX_ID_CHARS} characters`)
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this rejects
    .regex(/^[^\u0000-\u001f\u007f]*$/, `${field} must not contain control characters`);

/** A document id in a URL path (HTTP routes): the characters ids are made of, at most MAX_ID_CHARS. */
export const documentIdSchema = z.string().regex(new RegExp(`^[A-Za-z0-9_-]{1,${MAX_ID_CHARS}}$`), "invalid document id");

/** The resource URI template of a document, and a document's URI. */
export const DOCUMENT_URI_TEMPLATE = "kb://{kb}/{document_id}";
export function documentUri(kb: string, id: string): string {
  return `kb://${encodeURIComponent(kb)}/${encodeURIComponent(id)}`;
}

/** The resource URI template of a FAQ entry, and an entry's URI. */
export const FAQ_URI_TEMPLATE = "kb://{kb}/faq/{faq_id}";
export function faqUri(kb: string, id: string): string {
  return `kb://${encodeURIComponent(kb)}/faq/${encodeURIComponent(id)}`;
}
