import { z } from "zod";
import { kbNameSchema } from "@/lib/kb/names";

/** POST /api/tokens */
export const createTokenSchema = z.strictObject({
  name: z
    .string({ error: "name must be a string" })
    .trim()
    .min(1, "name must not be empty")
    .max(100, "name must be at most 100 characters"),
  scope: z.enum(["read", "read-write"], { error: 'scope must be "read" or "read-write"' }),
  kb: kbNameSchema.nullish(),
});

export const tokenIdSchema = z.string().regex(/^tok_[a-f0-9]{16}$/, "invalid token id");
