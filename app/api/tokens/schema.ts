import { z } from "zod";
import { MAX_TOKEN_NAME_CHARS } from "@/lib/credentials/token-types";
import { kbNameSchema } from "@/lib/kb/names";

/** POST /api/tokens */
export const createTokenSchema = z.strictObject({
  name: z
    .string({ error: "name must be a string" })
    .trim()
    .min(1, "name must not be empty")
    .max(MAX_TOKEN_NAME_CHARS, `name must be at most ${MAX_TOKEN_NAME_CHARS} characters`),
  scope: z.enum(["read", "read-write"], { error: 'scope must be "read" or "read-write"' }),
  kb: kbNameSchema.nullish(),
});

export const tokenIdSchema = z.string().regex(/^tok_[a-f0-9]{16}$/, "invalid token id");
