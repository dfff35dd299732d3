import { z } from "zod";
import { faqInputSchema } from "@/lib/faq/types";
import { kbNameSchema } from "@/lib/kb/names";
import { MAX_QUERY_CHARS } from "@/lib/limits";

export { faqIdSchema, faqPatchSchema } from "@/lib/faq/types";

/** Query of GET /api/faqs: a knowledge base, a search, and/or the review status. */
export const faqListQuerySchema = z.object({
  kb: kbNameSchema.optional(),
  q: z
    .string()
    .trim()
    .max(MAX_QUERY_CHARS, `q must be at most ${MAX_QUERY_CHARS} characters`)
    .optional()
    .transform((s) => s || undefined),
  status: z.enum(["accepted", "pending"], { error: 'status must be "accepted" or "pending"' }).optional(),
});

/** Body of POST /api/faqs; `from: "chat"` when a chat answer is promoted. */
export const faqCreateSchema = faqInputSchema.extend({ from: z.enum(["ui", "chat"]).optional() });
