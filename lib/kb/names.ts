import { z } from "zod";
import { TOOL } from "@/lib/tools/names";

/** Knowledge-base names are slugs: they appear in URLs (/api/mcp/<name>) and in tool names. */
export const MAX_KB_NAME_CHARS = 40;
/** The name rule as an HTML `pattern` too (browsers compile patterns with the v flag: the hyphen is escaped). */
export const KB_NAME_HTML_PATTERN = `[a-z0-9][a-z0-9_\\-]{0,${MAX_KB_NAME_CHARS - 1}}`;
export const KB_NAME_PATTERN = new RegExp(`^${KB_NAME_HTML_PATTERN}$`);
export const MAX_KB_TITLE_CHARS = 100;
export const MAX_KB_DESCRIPTION_CHARS = 1000;
/** Custom instructions: a few paragraphs of tone, language and what to refuse. */
export const MAX_KB_INSTRUCTIONS_CHARS = 2000;

/**
 * The one rule for a knowledge-base name wherever one comes in (upload field, CLI --kb, URL path, token
 * limit, chat filter, MCP arguments, new knowledge bases).
 */
export const kbNameSchema = z
  .string({ error: "name must be a string" })
  .trim()
  .regex(KB_NAME_PATTERN, "name must be 1–40 characters: lowercase letters, digits, '-' or '_', starting with a letter or digit");

/** A chat's or a conversation's knowledge-base filter: at most this many names. */
const MAX_KB_FILTER = 50;
export const kbListSchema = z.array(kbNameSchema).max(MAX_KB_FILTER, `at most ${MAX_KB_FILTER} knowledge bases`);

/** `raw` as a valid knowledge-base name, or a readable error message. */
export function checkKbName(raw: unknown): { ok: true; name: string } | { ok: false; message: string } {
  const parsed = kbNameSchema.safeParse(raw);
  if (parsed.success) return { ok: true, name: parsed.data };
  return { ok: false, message: `Invalid knowledge base name: ${parsed.error.issues[0]?.message ?? "invalid"}` };
}

export const GENERIC_SEARCH_TOOL = TOOL.searchKnowledge;

/** Narrows an MCP request to some knowledge bases (comma-separated, URI-encoded names); used by the app's chat. */
export const KB_FILTER_HEADER = "x-kb-filter";
const MAX_TOOL_NAME = 64;

/** 6 hex digits of FNV-1a: stable across runs and machines, so a tool keeps its name. */
function shortHash(s: string): string {
  let h = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(s)) h = Math.imul(h ^ byte, 0x01000193) >>> 0;
  return h.toString(16).padStart(8, "0").slice(0, 6);
}

/** `search_<slug>` for one knowledge base: `[a-z0-9_]` only (hyphens become underscores), ≤ 64 characters. */
export function searchToolBase(kb: string): string {
  let slug = kb
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, "_")
    .replace(/_+/g, "_")
    .replace(/^_|_$/g, "");
  if (!slug) slug = `kb_${shortHash(kb)}`;
  return `search_${slug}`.slice(0, MAX_TOOL_NAME);
}

/**
 * Tool names for a set of knowledge bases, unique among themselves and never a built-in tool name: a clash
 * (e.g. "a-b" and "a_b", or knowledge bases named "knowledge" or "faq") gets a short hash of the name appended.
 * Sorted input gives a stable assignment.
 */
export function searchToolNames(kbs: readonly string[]): Map<string, string> {
  const taken = new Set<string>(Object.values(TOOL));
  const out = new Map<string, string>();
  for (const kb of [...kbs].sort()) {
    let name = searchToolBase(kb);
    if (taken.has(name)) name = `${name.slice(0, MAX_TOOL_NAME - 7)}_${shortHash(kb)}`;
    taken.add(name);
    out.set(kb, name);
  }
  return out;
}

const MAX_LISTED_TITLES = 10;
const MAX_DESCRIPTION_IN_TOOL = 600;
const MAX_TITLES_CHARS = 500;

function cut(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** What a model reads to decide whether to search this knowledge base. */
export function searchToolDescription(kb: { name: string; title: string; description: string }, documentTitles: readonly string[]): string {
  const title = kb.title.trim() || kb.name;
  const description = cut(kb.description.trim().replace(/\s+/g, " "), MAX_DESCRIPTION_IN_TOOL).replace(/[.。]$/, "");
  let text = `Search the ${cut(title, 100)} knowledge base`;
  text += description ? `: ${description}.` : ".";
  if (documentTitles.length === 0) {
    text += " It holds no documents yet.";
  } else {
    const shown: string[] = [];
    let chars = 0;
    for (const t of documentTitles.slice(0, MAX_LISTED_TITLES)) {
      const clean = cut(t.replace(/\s+/g, " ").trim(), 120);
      if (shown.length > 0 && chars + clean.length > MAX_TITLES_CHARS) break;
      shown.push(clean);
      chars += clean.length + 2;
    }
    const more = documentTitles.length - shown.length;
    text += ` Documents: ${shown.join("; ")}${more > 0 ? `; … and ${more} more` : ""}.`;
  }
  return (
    text +
    " Returns the best passages in rank order, numbered [1], [2]… with document title, section and chunk_id; " +
    "cite them by number, and use read_document with a chunk_id to read more."
  );
}

/**
 * The custom instructions of the knowledge bases a chat searches (`kbs`; none: all), each under its title, for
 * the model's system prompt; empty when none has any.
 */
export function instructionsFor(all: readonly { name: string; title: string; instructions?: string }[], kbs?: readonly string[]): string {
  const chosen = kbs?.length ? all.filter((k) => kbs.includes(k.name)) : all;
  return chosen
    .filter((k) => k.instructions?.trim())
    .map((k) => `For ${k.title || k.name} (${k.name}):\n${k.instructions!.trim()}`)
    .join("\n\n");
}
