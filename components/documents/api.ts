/** Browser calls to /api/documents (with the admin token when one is stored). Uploads stream: see upload-client.ts. */
import { apiFetch } from "@/components/api";
import type { ChunkRecord, DocumentRecord } from "@/lib/types";

const path = (id: string) => `/api/documents/${encodeURIComponent(id)}`;

export interface DocumentDetail {
  document: DocumentRecord;
  chunks: ChunkRecord[];
  text?: string | null;
  pages?: { page: number; start: number }[] | null;
  /** Set when a source (web, Git, bucket, folder) brought the document in: the original page, file or object. */
  sourceLink?: { sourceId: string; url: string } | null;
}

/** A library row: a document a source brought in names the source. */
export type LibraryDocument = DocumentRecord & { sourceName?: string };

export const documentApi = {
  list: () => apiFetch<{ documents: LibraryDocument[] }>("/api/documents"),
  get: (id: string) => apiFetch<DocumentDetail>(path(id)),
  remove: (id: string) => apiFetch<unknown>(path(id), { method: "DELETE" }),
  reindex: (id: string) => apiFetch<{ document: DocumentRecord }>(`${path(id)}/reindex`, { method: "POST" }),
};
