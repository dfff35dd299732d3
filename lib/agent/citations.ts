/**
 * Citation numbering for one chat turn.
 *
 * Every search in a turn returns its own `ref` numbers (1..k), so two searches would both say `[1]`.
 * The turn keeps one registry: each distinct chunk gets one number for the whole answer, the tool
 * result the model reads is rewritten with those numbers, and the answer's `[n]` markers are checked
 * against the registry so a marker never points at a chunk that was not retrieved in this turn.
 */

import { titleWithHeading } from "@/lib/chunk/heading";
import { type SearchResult, searchOutputSchema } from "@/lib/tools/search-result";

/**
 * One retrieved chunk as the search tools return it (structuredContent.results[]): what a citation shows, and
 * the sentences around it (the offline answerer completes cut sentences with them; the browser is not sent them).
 */
export type RetrievedChunk = Pick<
  SearchResult,
  "chunk_id" | "document" | "kb" | "heading" | "text" | "score" | "page" | "context_before" | "context_after"
> & {
  /** A FAQ entry taken from a document: the passage of that document it was taken from (what its links open). */
  source_chunk_id?: string;
};

/**
 * Where a passage comes from, as the offline answerer reads it and the terminal shows it:
 * "Title › Section (file.pdf, p. 3)". `where` replaces the title and section (a FAQ entry's question).
 */
export function passagePlace(
  p: Pick<RetrievedChunk, "document" | "heading" | "page">,
  where = titleWithHeading(p.document.title, p.heading),
): string {
  return `${where} (${p.document.source}${p.page ? `, p. ${p.page}` : ""})`;
}

/** A retrieved chunk with its turn-wide citation number. */
export interface Citation extends RetrievedChunk {
  n: number;
}

/** A citation as the browser gets it: without the context only the offline answerer reads. */
export function shownCitation({ context_before: _before, context_after: _after, ...shown }: Citation): Citation {
  return shown;
}

export class CitationRegistry {
  private readonly byChunk = new Map<string, Citation>();
  private readonly byNumber = new Map<number, Citation>();

  /** Numbers new chunks in order; a chunk seen earlier in the turn keeps its number. Same order as input. */
  add(results: readonly (RetrievedChunk | SearchResult)[]): Citation[] {
    return results.map((r) => {
      const seen = this.byChunk.get(r.chunk_id);
      if (seen) {
        if (r.score > seen.score) seen.score = r.score;
        return seen;
      }
      const c: Citation = { ...retrieved(r), n: this.byChunk.size + 1 };
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

function retrieved(r: RetrievedChunk | SearchResult): RetrievedChunk {
  const source = "faq" in r ? r.faq?.source.chunk_id : "source_chunk_id" in r ? r.source_chunk_id : undefined;
  return {
    chunk_id: r.chunk_id,
    document: { id: r.document.id, title: r.document.title, source: r.document.source },
    kb: r.kb,
    heading: r.heading,
    text: r.text,
    score: r.score,
    ...(r.page !== undefined ? { page: r.page } : {}),
    ...(r.context_before ? { context_before: r.context_before } : {}),
    ...(r.context_after ? { context_after: r.context_after } : {}),
    ...(source ? { source_chunk_id: source } : {}),
  };
}

/** The retrieved chunks of a search tool's structuredContent (parsed with the tools' own schema); null when it carries none. */
export function extractRetrieved(structured: unknown): RetrievedChunk[] | null {
  const parsed = searchOutputSchema.safeParse(structured);
  return parsed.success ? parsed.data.results.map(retrieved) : null;
}

// ---------------------------------------------------------------------------------------------
// Markers in answer text

/**
 * A citation marker: `[3]`, `[1, 2]`, `[1-3]`, and the full-width `【2】` some models write.
 * Not a marker when followed by `(` (a Markdown link such as `[1](https://…)`) or `:` (a link definition).
 */
const MARKER = /[[【](\d{1,3}(?:\s*(?:[,，、]|[-–])\s*\d{1,3})*)[\]】](?![(:])/g;

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
  const HOLD = /\s*(?:[[【][\d\s,，、\-–]*)?$/;
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
