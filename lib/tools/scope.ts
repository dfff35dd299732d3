/**
 * Sources a person picked: the documents a search is limited to. One rule for the chat (which sends them to
 * its MCP endpoint in a header), the MCP tools' `documents` argument and retrieval. Browser-safe, and free of zod (every
 * page imports it): the schemas that check a scope are in lib/tools/scope-query.ts.
 */
/** The chat's picked documents, sent with each of its MCP requests (comma-separated, URI-encoded ids). */
export const DOCUMENT_FILTER_HEADER = "x-document-filter";

export const MAX_SCOPE_DOCUMENTS = 50;

/**
 * The documents a search runs over: those `requested` (a tool's argument) within those the server is limited to
 * (`server`, the chat's pick); undefined = no limit. An empty result means nothing may be searched.
 */
export function scopedDocuments(requested?: readonly string[], server?: readonly string[]): string[] | undefined {
  if (!requested?.length) return server ? [...server] : undefined;
  return server ? requested.filter((d) => server.includes(d)) : [...requested];
}

/**
 * What a conversation is limited to: the knowledge-base filter ("Search in", empty = every one the person reads)
 * and the picked documents (the Scope picker, empty = every document of those knowledge bases).
 */
export interface ChatScope {
  kbs?: readonly string[];
  documents?: readonly string[];
}

/**
 * The one scope rule: of `docs` (those the person may read), the ones a conversation with `scope` draws on. The
 * picker lists the documents of the chosen knowledge bases; the example and overview questions ask about the
 * picked documents (all of the listed ones when none is picked). A picked document outside the chosen knowledge
 * bases is never in scope (searches are limited to those knowledge bases too).
 */
export function documentsInScope<D extends { id: string; kb: string }>(docs: readonly D[], scope: ChatScope = {}): D[] {
  const kbs = scope.kbs?.length ? new Set(scope.kbs) : null;
  const picked = scope.documents?.length ? new Set(scope.documents) : null;
  return docs.filter((d) => (!kbs || kbs.has(d.kb)) && (!picked || picked.has(d.id)));
}

/** The picks that lie outside the chosen knowledge bases (`docs`: the documents the picker knows of; an unknown id stays). */
export function picksOutsideKbs(picked: readonly string[], docs: readonly { id: string; kb: string }[], kbs: readonly string[]): string[] {
  if (!kbs.length) return [];
  const kbOf = new Map(docs.map((d) => [d.id, d.kb]));
  return picked.filter((id) => {
    const kb = kbOf.get(id);
    return kb !== undefined && !kbs.includes(kb);
  });
}

/** Whether answers are limited to picked documents: a refusal then names "the selected sources", not the knowledge base. */
export const hasPickedDocuments = (scope: ChatScope): boolean => (scope.documents?.length ?? 0) > 0;

/**
 * A file attached to a question (not added to the library) lives in a knowledge base of its own,
 * "~<owner id>~<random>", which the knowledge-base name rule never admits: no one can name, create or be granted
 * it. It is listed nowhere (lib/auth/roles.ts mayRead), searched only when its question names it (lib/store
 * reads.ts), and read by id only by its owner (lib/auth/scope.ts readableDocuments).
 */
export const isAttachmentKb = (kb: string): boolean => kb.startsWith("~");

/** An attachment's knowledge base as made (lib/auth/scope.ts newAttachmentKb): the owner id, then a random UUID. */
export const isWellFormedAttachmentKb = (kb: string): boolean =>
  /^~[A-Za-z0-9_-]{0,64}~[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$/.test(kb);

/** The owner id an attachment's knowledge base names; null: one made without an account (the admin secret, a local run). */
export function attachmentOwnerOf(kb: string): string | null {
  if (!isAttachmentKb(kb)) return null;
  return kb.slice(1, kb.indexOf("~", 1)) || null;
}

/**
 * Whether a search limited to `kbs` and `documents` (undefined: no limit) reaches a chunk: the rule the store's
 * filter writes in SQL (lib/store/reads.ts), for the chunks searched in memory. An attachment only when named.
 */
export function searchReaches(
  chunk: { kb: string; documentId: string },
  o: { kbs?: readonly string[]; documents?: readonly string[] },
): boolean {
  if (o.documents && !o.documents.includes(chunk.documentId)) return false;
  if (isAttachmentKb(chunk.kb)) return o.documents !== undefined;
  return !o.kbs || o.kbs.includes(chunk.kb);
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

/** The query string of a scope (empty lists left out). */
export function scopeQuery(scope: ChatScope): Record<string, string> {
  return {
    ...(scope.kbs?.length ? { kbs: scope.kbs.map(encodeURIComponent).join(",") } : {}),
    ...(scope.documents?.length ? { documents: encodeDocumentFilter(scope.documents) } : {}),
  };
}

export function decodeDocumentFilter(raw: string | null): string[] | undefined {
  return decodeCommaList(raw)?.slice(0, MAX_SCOPE_DOCUMENTS);
}
