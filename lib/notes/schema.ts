/**
 * Notes: an answer kept with its checked text and citations, or a study guide, briefing or timeline made from a
 * knowledge base's documents. One validation rule set, shared by the routes and the browser (no server imports).
 */
import { z } from "zod";
import type { Citation, CitationCheck } from "@/lib/agent/protocol";
import { kbNameSchema } from "@/lib/kb/names";
import { documentIdsSchema } from "@/lib/tools/scope-query";

export const MAX_NOTE_TITLE_CHARS = 200;
/** Notes made from the documents on demand (an answer kept as a note is "answer"). */
export const MADE_KINDS = ["study-guide", "briefing", "timeline"] as const;
export type MadeKind = (typeof MADE_KINDS)[number];
export type NoteKind = "answer" | MadeKind;

export const noteIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "Not a note id.");
const titleSchema = z.string().trim().min(1, "The title must not be empty.").max(MAX_NOTE_TITLE_CHARS);

/** "Save as note": the answer (a message id), and the conversation holding it once saved. */
export const saveNoteSchema = z.strictObject({
  messageId: z.string().min(1).max(200),
  conversationId: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, "Not a conversation id.")
    .optional(),
  title: titleSchema.optional(),
});

export const renameNoteSchema = z.strictObject({ title: titleSchema });

/** A study guide, briefing or timeline of a knowledge base (of `documents` in it, when given). */
export const makeNoteSchema = z.strictObject({
  kind: z.enum(MADE_KINDS),
  kb: kbNameSchema,
  documents: documentIdsSchema.default([]),
  locale: z.enum(["en", "zh"]).default("en"),
});

export const listNotesSchema = z.object({ kb: kbNameSchema.optional() });

export interface NoteSummary {
  id: string;
  kind: NoteKind;
  title: string;
  /** The knowledge bases its citations come from: it is listed under each. */
  kbs: string[];
  createdAt: string;
  updatedAt: string;
}

export interface Note extends NoteSummary {
  /** The checked text, with the turn's citation numbers. */
  text: string;
  /** The citation check the text went through (its notes are shown with it). */
  check?: CitationCheck;
  citations: Citation[];
  /** The question it answered (an answer kept as a note). */
  question?: string;
  /** The model that wrote it; none for the offline answerer. */
  model?: string;
}

/** What a stored note's body must hold (read back with this, so a damaged row shows nothing it should not). */
export const noteBodySchema = z.object({
  text: z.string(),
  check: z.looseObject({ text: z.string(), sentences: z.array(z.looseObject({})) }).optional(),
  citations: z.array(
    z.looseObject({
      n: z.number().int(),
      chunk_id: z.string(),
      kb: z.string(),
      document: z.looseObject({ id: z.string(), title: z.string(), source: z.string() }),
    }),
  ),
  question: z.string().optional(),
  model: z.string().optional(),
});
