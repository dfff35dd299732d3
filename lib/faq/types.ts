/**
 * FAQ entries: curated question–answer pairs kept beside the documents and searched first.
 * Types and the one validation rule for a FAQ's fields, shared by the routes, the MCP tools, the CLI and
 * the browser (no server imports here).
 */
import { z } from "zod";
import { tagsSchema } from "@/lib/kb/fields";
import { kbNameSchema } from "@/lib/kb/names";
import { MAX_FAQ_QUESTION_CHARS } from "@/lib/limits";

/** How an entry got here. "extracted": recognised in a FAQ-shaped document; "generated": written by a model. */
export type FaqOrigin = "extracted" | "generated" | "manual" | "import";
/** Generated pairs wait for review ("pending") and are not searched until accepted. */
export type FaqStatus = "accepted" | "pending";

export interface FaqSource {
  /** The document and chunk the entry was taken from, when it came from one. */
  documentId: string | null;
  chunkId: string | null;
  /** Who or what added it: "document", "model", "UI", "token <name>", "import". */
  label: string;
}

export interface FaqRecord {
  id: string;
  kb: string;
  question: string;
  /** Other ways of asking the same question. */
  phrasings: string[];
  /** Markdown. */
  answer: string;
  tags: string[];
  source: FaqSource;
  origin: FaqOrigin;
  status: FaqStatus;
  createdAt: string;
  updatedAt: string;
}

const MAX_ANSWER_CHARS = 10_000;
const MAX_PHRASINGS = 20;

const text = (label: string, max: number) =>
  z
    .string({ error: (i) => (i.input === undefined ? `${label} is required` : `${label} must be a string`) })
    .trim()
    .min(1, `${label} must not be empty`)
    .max(max, `${label} must be at most ${max} characters`);

export const questionField = text("question", MAX_FAQ_QUESTION_CHARS);
export const answerField = text("answer", MAX_ANSWER_CHARS);
export const phrasingsField = z
  .array(text("each phrasing", MAX_FAQ_QUESTION_CHARS), { error: "phrasings must be a list of strings" })
  .max(MAX_PHRASINGS, `at most ${MAX_PHRASINGS} phrasings`);

/** A new FAQ entry as a person or a tool writes it. */
export const faqInputSchema = z.strictObject({
  question: questionField,
  answer: answerField,
  phrasings: phrasingsField.optional(),
  tags: tagsSchema.optional(),
  kb: kbNameSchema.optional(),
});
export type FaqInput = z.infer<typeof faqInputSchema>;

/** An edit: any of the fields, and accepting a generated pair. */
export const faqPatchSchema = z.strictObject({
  question: questionField.optional(),
  answer: answerField.optional(),
  phrasings: phrasingsField.optional(),
  tags: tagsSchema.optional(),
  status: z.enum(["accepted", "pending"], { error: 'status must be "accepted" or "pending"' }).optional(),
});
export type FaqPatch = z.infer<typeof faqPatchSchema>;

/** FAQ ids are hex digests. */
export const faqIdSchema = z.string().regex(/^[a-f0-9]{8,64}$/, "invalid FAQ id");

/** The chunk id a FAQ has in search results and citations: lets every consumer tell a FAQ from a passage. */
const FAQ_CHUNK_PREFIX = "faq:";
export function faqChunkId(id: string): string {
  return `${FAQ_CHUNK_PREFIX}${id}`;
}
export function faqIdOfChunk(chunkId: string): string | null {
  return chunkId.startsWith(FAQ_CHUNK_PREFIX) ? chunkId.slice(FAQ_CHUNK_PREFIX.length) : null;
}

/** The FAQ as Markdown (resources, export). */
export function faqMarkdown(f: Pick<FaqRecord, "question" | "answer" | "phrasings">): string {
  const also = f.phrasings.length ? `\n\n_Also asked as:_ ${f.phrasings.join(" · ")}` : "";
  return `## ${f.question}\n\n${f.answer.trim()}${also}\n`;
}

/** A FAQ search hit. */
export interface FaqHit {
  faq: FaqRecord;
  /** 0..1: how well the query matches the question (see match.ts). */
  score: number;
  /** Strong enough to be put before the passages. */
  strong: boolean;
}
