/** Browser calls to /api/notes. */
import { apiFetch } from "@/components/api";
import type { MadeKind, Note, NoteSummary } from "@/lib/notes/schema";

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
