/** The one validation of account input (sign-in, invites, user changes), shared by the routes and the pages. */
import { z } from "zod";
import { ROLES } from "@/lib/auth/roles";
import { kbListSchema } from "@/lib/kb/names";
import { MAX_PASSWORD_CHARS, MIN_PASSWORD_CHARS } from "./password-rules";

const MAX_EMAIL_CHARS = 254;
const MAX_PERSON_NAME_CHARS = 100;

const emailSchema = z.email({ error: "email must be an e-mail address" }).max(MAX_EMAIL_CHARS);
const passwordSchema = z
  .string({ error: "password must be a string" })
  .min(MIN_PASSWORD_CHARS, `password must be at least ${MIN_PASSWORD_CHARS} characters`)
  .max(MAX_PASSWORD_CHARS, `password must be at most ${MAX_PASSWORD_CHARS} characters`);
const roleSchema = z.enum(ROLES, { error: 'role must be "admin", "editor" or "reader"' });
const personNameSchema = z.string().trim().max(MAX_PERSON_NAME_CHARS, `name must be at most ${MAX_PERSON_NAME_CHARS} characters`);

export const signInSchema = z.union([
  z.strictObject({
    email: z.string().trim().max(MAX_EMAIL_CHARS),
    password: z.string().max(MAX_PASSWORD_CHARS),
  }),
  /** The admin secret, exchanged for a session cookie: the browser never keeps the secret itself. */
  z.strictObject({ secret: z.string().trim().min(1).max(MAX_PASSWORD_CHARS) }),
]);

export const changePasswordSchema = z.strictObject({
  current: z.string().max(MAX_PASSWORD_CHARS),
  password: passwordSchema,
});

export const inviteSchema = z.strictObject({
  email: emailSchema.nullish(),
  role: roleSchema,
  kbs: kbListSchema.default([]),
});

export const acceptInviteSchema = z.strictObject({
  invite: z.string().regex(/^kbi_[A-Za-z0-9_-]{32}$/, "invalid invite"),
  email: emailSchema,
  name: personNameSchema.default(""),
  password: passwordSchema,
});

export const createUserSchema = z.strictObject({
  email: emailSchema,
  name: personNameSchema.default(""),
  password: passwordSchema,
  role: roleSchema,
  kbs: kbListSchema.default([]),
});

export const updateUserSchema = z.strictObject({
  name: personNameSchema.optional(),
  role: roleSchema.optional(),
  kbs: kbListSchema.optional(),
  password: passwordSchema.optional(),
});

export const userIdSchema = z.string().regex(/^usr_[a-f0-9]{16}$/, "invalid user id");

/** A pending invite's id (the SHA-256 hex of its secret, as GET /api/users lists it). */
export const inviteIdSchema = z.string().regex(/^[a-f0-9]{64}$/, "invalid invite id");
