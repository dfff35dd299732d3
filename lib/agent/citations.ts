/**
 * Citation numbering for one chat turn.
 *
 * Every search in a turn returns its own `ref` numbers (1..k), so two searches would both say `[1]`.
 * The turn keeps one registry: each distinct chunk gets one number for the whole answer, the tool
 * result the model reads is rewritten with those numbers, and the answer's `[n]` markers are checked
 * against the registry so a marker never points at a chunk that was not retrieved in this turn.
 */

import type { SearchResult } from "@/mcp/format";

/** One retrieved chunk as the MCP `search_knowledge` tool returns it (structuredContent.results[]), without its per-search ref. */
export type RetrievedChunk = Omit<SearchResult, "ref">;

/** A retrieved chunk with its turn-wide citation number. */
export interface Citation extends RetrievedChunk {
  n: number;
}

export class CitationRegistry {
  private readonly byChunk = new Map<string, Citation>();
  private readonly byNumber = new Map<number, Citation>();

  /** Numbers new chunks in order; a chunk seen earlier in the turn keeps its number. Same order as input. */
  add(results: readonly (RetrievedChunk & { ref?: unknown })[]): Citation[] {
    return results.map((r) => {
      const seen = this.byChunk.get(r.chunk_id);
      if (seen) {
        if (r.score > seen.score) seen.score = r.score;
        return seen;
      }
      const c: Citation = { ...stripRef(r), n: this.byChunk.size + 1 };
      this.byChunk.set(r.chunk_id, c);
      this.byNumber.set(c.n, c);
      return c;
    });
  }

  has(n: number): boolean {
    return this.byNumber.has(n);
  }

  get(n: number): Citation | undefined {
    return this.byNumber.get(n);
  }

  /** All citations of the turn, by number. */
  list(): Citation[] {
    return [...this.byNumber.values()].sort((a, b) => a.n - b.n);
  }

  get size(): number {
    return this.byNumber.size;
  }
}

function stripRef(r: RetrievedChunk & { ref?: unknown }): RetrievedChunk {
  const { ref: _ref, ...rest } = r;
  return {
    ...rest,
    document: { id: r.document.id, title: r.document.title, source: r.document.source },
  };
}

/** Pulls retrieved chunks out of a tool's structuredContent; null when the result carries none. */
export function extractRetrieved(structured: unknown): RetrievedChunk[] | null {
  if (!structured || typeof structured !== "object") return null;
  const results = (structured as { results?: unknown }).results;
  if (!Array.isArray(results)) return null;
  const out: RetrievedChunk[] = [];
  for (const r of results) {
    if (!r || typeof r !== "object") continue;
    const o = r as Record<string, unknown>;
    const doc = (o.document ?? {}) as Record<string, unknown>;
    if (typeof o.chunk_id !== "string" || typeof o.text !== "string") continue;
    out.push({
      chunk_id: o.chunk_id,
      document: {
        id: String(doc.id ?? ""),
        title: String(doc.title ?? doc.source ?? ""),
        source: String(doc.source ?? ""),
      },
      kb: String(o.kb ?? ""),
      heading: typeof o.heading === "string" ? o.heading : "",
      text: o.text,
      score: typeof o.score === "number" ? o.score : 0,
      ...(typeof o.page === "number" ? { page: o.page } : {}),
    });
  }
  return out;
}

/**
 * The text the model reads for a search result: one block per chunk, headed by its turn-wide number.
 * `parseResultBlocks` reads the same format back (the offline answerer uses it).
 */
export function formatResultsForModel(citations: readonly Citation[]): string {
  if (citations.length === 0) return "No matching passages were found in the knowledge base.";
  return citations
    .map((c) => {
      const where = titleWithHeading(c.document.title, c.heading);
      const page = c.page ? `, p. ${c.page}` : "";
      return `[${c.n}] ${where} (${c.document.source}${page})\n${c.text.trim()}`;
    })
    .join("\n\n");
}

const SEP = " › ";

/** "Title › Section › Sub", without repeating the title when the heading path starts with it. */
export function titleWithHeading(title: string, heading: string): string {
  const parts = heading.split(SEP).map((p) => p.trim()).filter(Boolean);
  if (parts.length > 0 && parts[0].toLowerCase() === title.trim().toLowerCase()) parts.shift();
  return [title, ...parts].filter(Boolean).join(SEP);
}

export interface ResultBlock {
  n: number;
  title: string;
  text: string;
}

const BLOCK_HEAD = /^\[(\d+)\] (.*)$/gm;

export function parseResultBlocks(text: string): ResultBlock[] {
  const heads = [...text.matchAll(BLOCK_HEAD)];
  return heads.map((m, i) => {
    const bodyStart = m.index! + m[0].length + 1;
    const bodyEnd = i + 1 < heads.length ? heads[i + 1].index! : text.length;
    return { n: Number(m[1]), title: m[2], text: text.slice(bodyStart, bodyEnd).trim() };
  });
}

// ---------------------------------------------------------------------------------------------
// Markers in answer text

/**
 * A citation marker: `[3]`, `[1, 2]`, `[1-3]`, and the full-width `【2】` some models write.
 * Not a marker when followed by `(` (a Markdown link such as `[1](https://…)`) or `:` (a link definition).
 */
const MARKER = /[\[【](\d{1,3}(?:\s*(?:[,，、]|[-–])\s*\d{1,3})*)[\]】](?![(:])/g;

function expandMarker(body: string): number[] {
  const out: number[] = [];
  for (const part of body.split(/\s*[,，、]\s*/)) {
    const range = part.match(/^(\d+)\s*[-–]\s*(\d+)$/);
    if (range) {
      const a = Number(range[1]);
      const b = Number(range[2]);
      if (b >= a && b - a < 20) for (let n = a; n <= b; n++) out.push(n);
      else out.push(a, b);
    } else {
      out.push(Number(part));
    }
  }
  return out;
}

export interface SanitizedText {
  text: string;
  /** Valid numbers, in order of first appearance. */
  cited: number[];
  /** Numbers that pointed at nothing and were removed. */
  dangling: number[];
}

/**
 * Rewrites every marker to the canonical `[n]` form, keeping only numbers for which `isValid` holds.
 * A marker with no valid number is removed together with the whitespace before it.
 */
export function sanitizeCitations(text: string, isValid: (n: number) => boolean): SanitizedText {
  const cited: number[] = [];
  const dangling: number[] = [];
  const out = text.replace(new RegExp(`\\s*${MARKER.source}`, "g"), (whole, body: string) => {
    const lead = whole.match(/^\s*/)![0];
    const valid: number[] = [];
    for (const n of expandMarker(body)) {
      if (isValid(n)) {
        if (!valid.includes(n)) valid.push(n);
        if (!cited.includes(n)) cited.push(n);
      } else if (!dangling.includes(n)) {
        dangling.push(n);
      }
    }
    return valid.length ? lead + valid.map((n) => `[${n}]`).join("") : "";
  });
  return { text: out, cited, dangling };
}

/** Numbers of the markers in `text`, in order of first appearance (no validation). */
export function citedNumbers(text: string): number[] {
  const seen: number[] = [];
  for (const m of text.matchAll(MARKER)) for (const n of expandMarker(m[1])) if (!seen.includes(n)) seen.push(n);
  return seen;
}

/** Removes every marker, e.g. from earlier answers whose numbers belonged to another turn. */
export function stripCitations(text: string): string {
  return sanitizeCitations(text, () => false).text;
}

/**
 * Incremental `sanitizeCitations` for streamed text: holds back a tail that may still become a marker
 * (`… [1`), and the whitespace before it, until the next delta or `flush()` decides.
 */
export function createCitationStreamSanitizer(isValid: (n: number) => boolean) {
  let pending = "";
  const HOLD = /\s*(?:[\[【][\d\s,，、\-–]*)?$/;
  const MAX_HOLD = 32;
  return {
    push(delta: string): string {
      pending += delta;
      const tail = pending.match(HOLD)![0];
      const cut = tail.length > 0 && tail.length <= MAX_HOLD ? pending.length - tail.length : pending.length;
      const ready = pending.slice(0, cut);
      pending = pending.slice(cut);
      return sanitizeCitations(ready, isValid).text;
    },
    flush(): string {
      const rest = sanitizeCitations(pending, isValid).text;
      pending = "";
      return rest;
    },
  };
}
