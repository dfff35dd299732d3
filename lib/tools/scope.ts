/**
 * Sources a person picked: the documents a search is limited to. One rule for the chat (which sends them to
 * its MCP endpoint in a header), the MCP tools' `documents` argument and retrieval. Browser-safe.
 */
import { z } from "zod";

/** The chat's picked documents, sent with each of its MCP requests (comma-separated, URI-encoded ids). */
export const DOCUMENT_FILTER_HEADER = "x-document-filter";

export const MAX_SCOPE_DOCUMENTS = 50;

export const documentIdsSchema = z
  .array(z.string().min(1).max(200), { error: "documents must be a list of document ids" })
  .max(MAX_SCOPE_DOCUMENTS, `documents: at most ${MAX_SCOPE_DOCUMENTS} document ids`);

/**
 * The documents a search runs over: those `requested` (a tool's argument) within those the server is limited to
 * (`server`, the chat's pick); undefined = no limit. An empty result means nothing may be searched.
 */
export function scopedDocuments(requested?: readonly string[], server?: readonly string[]): string[] | undefined {
  if (!requested?.length) return server ? [...server] : undefined;
  return server ? requested.filter((d) => server.includes(d)) : [...requested];
}

/** A question's scope: the documents picked for the conversation plus those attached to the question (at most MAX_SCOPE_DOCUMENTS). */
export function withAttached(picked: readonly string[], attached: readonly string[]): string[] {
  return [...new Set([...picked, ...attached])].slice(0, MAX_SCOPE_DOCUMENTS);
}

export function encodeDocumentFilter(ids: readonly string[]): string {
  return ids.map(encodeURIComponent).join(",");
}

/** A header's comma-separated, percent-encoded list (the knowledge-base and document filters); a bad item is dropped. */
export function decodeCommaList(raw: string | null): string[] | undefined {
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

export function decodeDocumentFilter(raw: string | null): string[] | undefined {
  return decodeCommaList(raw)?.slice(0, MAX_SCOPE_DOCUMENTS);
}
