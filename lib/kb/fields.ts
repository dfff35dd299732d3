/**
 * The rules for what a person names and labels a document with, defined once and applied once, where input
 * comes in: the upload (sanitizeFileName in ingestUploads, the form's tagsSchema), MCP add_document (its title's
 * file name, its tagsSchema), the CLI and the knowledge/ folder (fileNameOf, parseTags). The ingest pipeline
 * trusts what they produce and checks neither again.
 */
import { z } from "zod";
import { AppError } from "@/lib/types";

const MAX_FILE_NAME_CHARS = 200;
export const MAX_TAGS = 32;
const MAX_TAG_CHARS = 64;

// Control characters, C1 controls and bidi overrides: invisible, and able to disguise a name ("txt.exe").
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const HIDDEN_CHARS = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

function extensionOf(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot, dot + 16) : "";
}

/**
 * A display name safe to store: the last path segment only (either slash), no control or bidi-override
 * characters, no leading dots, any other Unicode kept, at most MAX_FILE_NAME_CHARS characters (keeping the
 * extension). The result is a label, never a path on disk.
 */
export function sanitizeFileName(name: string): string {
  let base = String(name ?? "")
    .normalize("NFC")
    .replace(HIDDEN_CHARS, "")
    .split(/[\\/]/)
    .pop()
    ?.replace(/^[.\s]+/, "")
    .trim();
  if (!base) base = "untitled";
  if ([...base].length > MAX_FILE_NAME_CHARS) {
    const ext = extensionOf(base);
    base = [...base.slice(0, base.length - ext.length)].slice(0, MAX_FILE_NAME_CHARS - ext.length).join("") + ext;
  }
  return base;
}

/** Tags: trimmed, non-empty, each at most MAX_TAG_CHARS, at most MAX_TAGS, duplicates dropped. */
export const tagsSchema = z
  .array(z.string({ error: "each tag must be a string" }), { error: "tags must be a list of strings" })
  .transform((list) => [...new Set(list.map((t) => t.trim()).filter(Boolean))])
  .pipe(
    z
      .array(z.string().max(MAX_TAG_CHARS, `each tag must be at most ${MAX_TAG_CHARS} characters`))
      .max(MAX_TAGS, `at most ${MAX_TAGS} tags`),
  );

/** The stored name of a file that comes in without a form (CLI, knowledge/ folder): refused without any name, else sanitizeFileName. */
export function fileNameOf(raw: string): string {
  if (!String(raw ?? "").trim()) throw new AppError("bad_request", "The file has no name.");
  return sanitizeFileName(raw);
}

/** Tags given with a document outside a form schema (CLI): tagsSchema, refused as bad_request. */
export function parseTags(tags: unknown): string[] {
  if (tags === undefined || tags === null) return [];
  const parsed = tagsSchema.safeParse(tags);
  if (!parsed.success) throw new AppError("bad_request", parsed.error.issues[0]?.message ?? "invalid tags");
  return parsed.data;
}
