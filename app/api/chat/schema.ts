import { z } from "zod";
import { kbListSchema } from "@/lib/kb/names";
import { documentIdsSchema } from "@/lib/tools/scope-query";

const part = z.looseObject({ type: z.string().max(100) });

const message = z.looseObject({
  id: z.string().max(200).optional(),
  role: z.enum(["user", "assistant", "system"]),
  parts: z.array(part).max(500),
});

/** Body that useChat's DefaultChatTransport sends. Extra fields are ignored. */
export const chatRequestSchema = z.looseObject({
  id: z.string().max(200).optional(),
  messages: z.array(message).min(1).max(400),
  /** Limit the chat's searches to these knowledge bases; omitted or empty = all. */
  kbs: kbListSchema.optional(),
  /** Limit the chat's searches to these documents (the sources picked for the conversation or the question). */
  documents: documentIdsSchema.optional(),
  /** Regenerate: the answers already given to this question (the offline answerer then offers others). */
  avoid: z.array(z.string().max(20_000)).max(20).optional(),
  /** The model picked for this conversation (one of /api/chat/models); omitted: CHAT_MODEL. */
  model: z.string().min(1).max(200).optional(),
  /** The UI language, for the offline follow-up suggestions when the question does not say. */
  locale: z.enum(["en", "zh"]).optional(),
});
