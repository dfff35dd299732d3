import { z } from "zod";
import { kbNameSchema, MAX_KB_DESCRIPTION_CHARS, MAX_KB_INSTRUCTIONS_CHARS, MAX_KB_TITLE_CHARS } from "@/lib/kb/names";

const title = z
  .string({ error: "title must be a string" })
  .trim()
  .max(MAX_KB_TITLE_CHARS, `title must be at most ${MAX_KB_TITLE_CHARS} characters`);
const description = z
  .string({ error: "description must be a string" })
  .trim()
  .max(MAX_KB_DESCRIPTION_CHARS, `description must be at most ${MAX_KB_DESCRIPTION_CHARS} characters`);

const instructions = z
  .string({ error: "instructions must be a string" })
  .trim()
  .max(MAX_KB_INSTRUCTIONS_CHARS, `instructions must be at most ${MAX_KB_INSTRUCTIONS_CHARS} characters`);

/** POST /api/kbs */
export const createKbSchema = z.strictObject({ name: kbNameSchema, title: title.optional(), description: description.optional() });

/** PATCH /api/kbs/<name>: any of title, description, instructions, and name (a rename). */
export const updateKbSchema = z
  .strictObject({
    name: kbNameSchema.optional(),
    title: title.optional(),
    description: description.optional(),
    instructions: instructions.optional(),
  })
  .refine((p) => Object.values(p).some((v) => v !== undefined), "nothing to change");

export const kbParamSchema = kbNameSchema;
