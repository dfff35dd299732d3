/** Browser calls to /api/notes. */
import { apiFetch } from "@/components/api";
import type { MadeKind, Note, NoteSummary } from "@/lib/notes/schema";
import { scopeQuery } from "@/lib/tools/scope";

export const notesApi = {
  list: (kb?: string) => apiFetch<{ notes: NoteSummary[] }>(`/api/notes${kb ? `?kb=${encodeURIComponent(kb)}` : ""}`),
  get: (id: string) => apiFetch<{ note: Note }>(`/api/notes/${encodeURIComponent(id)}`),
  save: (body: { messageId: string; conversationId?: string }) => apiFetch<{ note: Note }>("/api/notes", { method: "POST", body }),
  rename: (id: string, title: string) =>
    apiFetch<{ note: Note }>(`/api/notes/${encodeURIComponent(id)}`, { method: "PATCH", body: { title } }),
  remove: (id: string) => apiFetch<{ deleted: string }>(`/api/notes/${encodeURIComponent(id)}`, { method: "DELETE" }),
  make: (body: { kind: MadeKind; kb: string; documents: string[]; locale: "en" | "zh" }) =>
    apiFetch<{ note: Note }>("/api/notes/make", { method: "POST", body }),
};

/** The notes page of knowledge base `kb`, its Scope picker starting with `documents` ticked (a conversation's sources). */
export const notesHref = (kb: string, documents: readonly string[] = []): string =>
  `/notes?${new URLSearchParams({ kb, ...scopeQuery({ documents }) })}`;
