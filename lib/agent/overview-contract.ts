/**
 * The overview of a document or of the knowledge bases a person reads, as GET /api/overview answers it:
 * what it covers, its sections, and questions it answers. `kind` says who wrote it: "extracted" offline from
 * the text (questions checked against the library), "model" by the chat model.
 */
import { z } from "zod";
import { documentIdSchema } from "@/lib/limits";
import { scopeQuerySchema } from "@/lib/tools/scope-query";

export interface Overview {
  kind: "extracted" | "model";
  covers: string;
  sections: string[];
  questions: string[];
}

/** `document`: one document's overview; else that of the conversation's scope (`kbs`, `documents`: lib/tools/scope.ts). */
export const overviewQuerySchema = scopeQuerySchema.extend({
  document: documentIdSchema.optional(),
  locale: z.enum(["en", "zh"]).default("en"),
});
