/** The browser's calls to /api/conversations. */
import { apiFetch } from "@/components/api";
import type { ChatUIMessage } from "@/lib/agent/protocol";
import type { Conversation, ConversationSummary, Feedback } from "@/lib/conversations/schema";

export type { Conversation, ConversationSummary, Feedback };

const path = (id: string) => `/api/conversations/${encodeURIComponent(id)}`;

export const conversationApi = {
  list: (q?: string) => apiFetch<{ conversations: ConversationSummary[] }>(`/api/conversations${q ? `?q=${encodeURIComponent(q)}` : ""}`),
  get: (id: string) => apiFetch<{ conversation: Conversation; removedDocuments: number }>(path(id)),
  create: (body: { id: string; kbs: string[]; documents: string[]; messages: ChatUIMessage[] }) =>
    apiFetch<{ conversation: Conversation }>("/api/conversations", { method: "POST", body }),
  update: (id: string, body: { title?: string; kbs?: string[]; documents?: string[]; messages?: ChatUIMessage[] }) =>
    apiFetch<{ conversation: Conversation }>(path(id), { method: "PATCH", body }),
  pin: (id: string, pinned: boolean) => apiFetch<{ pinned: boolean }>(`${path(id)}/pin`, { method: "PUT", body: { pinned } }),
  remove: (id: string) => apiFetch<{ deleted: string }>(path(id), { method: "DELETE" }),
  feedback: (id: string, body: { messageId: string; rating: "up" | "down" | null; note?: string }) =>
    apiFetch<{ feedback: Record<string, Feedback> }>(`${path(id)}/feedback`, { method: "POST", body }),
};
