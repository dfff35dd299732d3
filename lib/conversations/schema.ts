/**
 * Conversations: the chat's messages (UI messages as the chat protocol defines them), the knowledge
 * bases they were asked against, and per-answer feedback. One validation rule set, shared by the routes.
 */
import { z } from "zod";
import { kbListSchema, kbNameSchema } from "@/lib/kb/names";
import { documentIdsSchema } from "@/lib/tools/scope-query";

export const MAX_CONVERSATION_MESSAGES = 400;
export const MAX_TITLE_CHARS = 200;
export const MAX_NOTE_CHARS = 2000;

export const conversationIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "Not a conversation id.");

/** A stored UI message: id, role and parts are required; the rest (metadata, part fields) is kept as is. */
export const messageSchema = z.looseObject({
  id: z.string().min(1).max(200),
  role: z.enum(["user", "assistant", "system"]),
  parts: z.array(z.looseObject({ type: z.string().max(100) })).max(500),
});

export type StoredMessage = z.infer<typeof messageSchema>;

export const createConversationSchema = z.object({
  id: conversationIdSchema.optional(),
  title: z.string().trim().max(MAX_TITLE_CHARS).optional(),
  kbs: kbListSchema.default([]),
  /** The sources picked for the conversation (empty = every document). */
  documents: documentIdsSchema.default([]),
  messages: z.array(messageSchema).max(MAX_CONVERSATION_MESSAGES).default([]),
});

export const updateConversationSchema = z
  .object({
    title: z.string().trim().min(1).max(MAX_TITLE_CHARS).optional(),
    kbs: kbListSchema.optional(),
    documents: documentIdsSchema.optional(),
    messages: z.array(messageSchema).max(MAX_CONVERSATION_MESSAGES).optional(),
  })
  .refine((v) => Object.values(v).some((x) => x !== undefined), "Nothing to update.");

export const feedbackSchema = z.object({
  messageId: z.string().min(1).max(200),
  /** null removes the rating (and its note). */
  rating: z.enum(["up", "down"]).nullable(),
  note: z.string().trim().max(MAX_NOTE_CHARS).optional(),
});

export const listConversationsSchema = z.object({
  q: z.string().trim().max(200).optional(),
  kb: kbNameSchema.optional(),
});

export const pinSchema = z.strictObject({ pinned: z.boolean() });

/** A share link's secret part: 32 URL-safe characters. */
export const shareTokenSchema = z.string().regex(/^[A-Za-z0-9_-]{32}$/, "Not a share link.");

/** A conversation as a share link shows it: the shown branch when the link was made or last updated, read-only, without feedback. */
export interface SharedConversation {
  title: string;
  messages: StoredMessage[];
  /** When the owner made or last updated the link (the snapshot's time). */
  updatedAt: string;
}

/** A share link as its owner sees it: whether the conversation changed since the link's snapshot. */
export interface ShareLink {
  token: string;
  conversationId: string;
  createdAt: string;
  updatedAt: string;
  /** The conversation has messages or a title the link does not show (the owner may update it). */
  stale: boolean;
}

/** A share link in the owner's list of links, with the conversation's title. */
export interface ShareLinkSummary extends ShareLink {
  title: string;
}

export type CreateConversation = z.input<typeof createConversationSchema>;
export type UpdateConversation = z.infer<typeof updateConversationSchema>;
export type FeedbackInput = z.infer<typeof feedbackSchema>;

export interface Feedback {
  rating: "up" | "down";
  note?: string;
  at: string;
}

export interface ConversationSummary {
  id: string;
  title: string;
  kbs: string[];
  messageCount: number;
  createdAt: string;
  updatedAt: string;
  /** Shown at the top of the list (lib/conversations/pins.ts). */
  pinned?: boolean;
  /** Has a share link (lib/conversations/shares.ts). */
  shared?: boolean;
}

export interface Conversation extends ConversationSummary {
  /** The sources picked for the conversation (empty = every document); each question records its own in its metadata. */
  documents: string[];
  messages: StoredMessage[];
  /** By answer (message) id. */
  feedback: Record<string, Feedback>;
}
