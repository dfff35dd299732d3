/**
 * The shapes of a stored message's parts that the chat view reads: one zod schema per part type. A stored
 * part that does not match (a row written by hand, by an older version, or by a client before answers were
 * kept by the server) is dropped when the conversation is read, so no view ever gets one it cannot draw.
 * Part types not listed here (step-start, reasoning) are kept as they are: the views do not read them.
 */
import { z } from "zod";
import { searchResultSchema } from "@/lib/tools/search-result";
import { messageSchema, type StoredMessage } from "./schema";

const citationSchema = searchResultSchema.omit({ ref: true }).extend({ n: z.number().int() });

const checkSchema = z.object({
  text: z.string(),
  sentences: z.array(
    z.object({
      text: z.string(),
      end: z.number(),
      citations: z.array(z.object({ n: z.number().int(), support: z.number(), from: z.number().int().optional() })),
      unsupported: z.enum(["citation", "number"]).optional(),
      numbers: z.array(z.string()).optional(),
    }),
  ),
});

const PART_SCHEMAS: Readonly<Record<string, z.ZodType>> = {
  text: z.looseObject({ text: z.string() }),
  "data-citations": z.looseObject({ data: z.object({ citations: z.array(citationSchema) }) }),
  "data-check": z.looseObject({ data: checkSchema }),
  "data-followups": z.looseObject({
    data: z.object({ questions: z.array(z.object({ question: z.string(), from: z.string().optional() })) }),
  }),
  "dynamic-tool": z.looseObject({ toolName: z.string(), toolCallId: z.string(), state: z.string() }),
};

/** Whether a stored part has the shape its type promises (a type no view reads: yes). */
function isWellFormedPart(part: { type: string }): boolean {
  return PART_SCHEMAS[part.type]?.safeParse(part).success ?? true;
}

/** The message without the parts that are not well formed. */
function withWellFormedParts<M extends { parts: { type: string }[] }>(m: M): M {
  return m.parts.every(isWellFormedPart) ? m : { ...m, parts: m.parts.filter(isWellFormedPart) };
}

/** Stored messages as the views may read them: a message or part that is not well formed is left out. */
export function wellFormedMessages(all: unknown): StoredMessage[] {
  if (!Array.isArray(all)) return [];
  return all.flatMap((m) => {
    const parsed = messageSchema.safeParse(m);
    return parsed.success ? [withWellFormedParts(parsed.data)] : [];
  });
}
