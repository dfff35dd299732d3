import { z } from "zod";
import { MAX_TAGS, tagsSchema } from "@/lib/kb/fields";
import { kbNameSchema } from "@/lib/kb/names";
import { MAX_AUTHOR_CHARS, MAX_DOCUMENT_TITLE_CHARS } from "@/lib/limits";

const optionalText = (max: number, label: string) =>
  z
    .string()
    .trim()
    .max(max, `${label} must be at most ${max} characters`)
    .transform((s) => (s === "" ? undefined : s))
    .optional();

/** An optional kb field: empty means the default knowledge base; otherwise the one knowledge-base name rule. */
const kbField = z
  .string()
  .trim()
  .transform((s) => (s === "" ? undefined : s))
  .pipe(kbNameSchema.optional())
  .optional();

/** Form fields of POST /api/documents besides `files`. Tags: repeated fields and/or comma-separated. */
export const uploadFieldsSchema = z.object({
  kb: kbField,
  /** "question": a file attached to a chat question, kept with the person's conversation, not added to the library. */
  attach: z.enum(["question"], { error: 'attach must be "question"' }).optional(),
  title: optionalText(MAX_DOCUMENT_TITLE_CHARS, "title"),
  author: optionalText(MAX_AUTHOR_CHARS, "author"),
  tags: z
    .array(z.string().max(1000))
    .max(MAX_TAGS)
    .transform((list) => list.flatMap((t) => t.split(",")))
    .pipe(tagsSchema),
});

/** Query of GET /api/documents. */
export const listQuerySchema = z.object({
  kb: kbField,
  /** Case-insensitive substring of title or file name. */
  q: optionalText(200, "q"),
});
