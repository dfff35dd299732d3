/**
 * How an answer's sources are shown: numbered 1..n in order of first citation, with a one-line snippet
 * and a relevance word instead of raw fusion scores, and how a copied answer carries its references.
 */
import { citedNumbers, stripCitations } from "@/lib/agent/citations";
import type { Citation, CitationCheck } from "@/lib/agent/protocol";
import { titleWithHeading } from "@/lib/chunk/heading";
import { passagePath } from "@/lib/tools/links";

const MARKER = /\[(\d{1,3})\](?![(:])/g;

/**
 * The answer's citations renumbered for display: those cited, in order of first citation (1..k), then
 * the rest retrieved in the turn (k+1..). Keyed by the turn's own number, which the answer text uses.
 */
export function displayCitations(
  text: string,
  all: readonly Citation[],
): { byN: Map<number, Citation>; cited: Citation[]; others: Citation[] } {
  const known = new Map(all.map((c) => [c.n, c]));
  const order = citedNumbers(text).filter((n) => known.has(n));
  const rest = all.filter((c) => !order.includes(c.n)).map((c) => c.n);
  const byN = new Map<number, Citation>();
  for (const [i, n] of [...order, ...rest].entries()) byN.set(n, { ...known.get(n)!, n: i + 1 });
  return { byN, cited: order.map((n) => byN.get(n)!), others: rest.map((n) => byN.get(n)!) };
}

/**
 * Relevance in words, relative to the best chunk of the turn (fused scores have no absolute meaning); for a
 * cited chunk, no higher than the citation check's support of the sentence citing it (0..1, lib/agent/support.ts):
 * "Strong match" only for a chunk that says what its sentence claims. The exact source of what the answer says
 * (support 1: all of the claim is in it, like a FAQ entry quoted whole) is a strong match whatever its rank; a FAQ
 * entry's score is on a scale of its own.
 */
export function relevance(score: number, best: number, support?: number): "high" | "medium" | "low" {
  if (support !== undefined && support >= 1) return "high";
  if (!(best > 0) || !Number.isFinite(score)) return "low";
  const r = support === undefined ? score / best : Math.min(score / best, support);
  return r >= 0.8 ? "high" : r >= 0.5 ? "medium" : "low";
}

/** Markdown syntax stripped, for a plain one-line preview. */
export function plainText(markdown: string): string {
  return markdown
    .replace(/^\s{0,3}#{1,6}\s+/gm, "")
    .replace(/^\s*(?:[-*+]|\d+[.)])\s+/gm, "")
    .replace(/^\s*>\s?/gm, "")
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]+)\]\([^)]*\)/g, "$1")
    .replace(/(\*\*|__|\*|_|`)(.+?)\1/g, "$2")
    .replace(/\|/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** The chunk's text without the heading lines it starts with (the heading path says them), as one plain line. */
export function snippet(c: Pick<Citation, "text">, max = 160): string {
  const body = c.text.replace(/^(?:\s*#{1,6}\s[^\n]*(?:\n|$))+/, "");
  const line = plainText(body || c.text);
  return line.length > max ? `${line.slice(0, max - 1).trimEnd()}…` : line;
}

/** Text for a Markdown file: `<` and `>` as entities, so no tag in a title or heading is ever HTML. */
export function htmlAsText(text: string): string {
  return text.replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Where a citation points: "Title › Section · p. 3". */
function citationLabel(c: Citation, page: (p: number) => string): string {
  return [titleWithHeading(c.document.title, c.heading), c.page ? page(c.page) : ""].filter(Boolean).join(" · ");
}

/** The document view of the cited chunk; with the claim a chip supports, the view also marks the sentence that backs it. */
export function documentHref(c: Pick<Citation, "document" | "chunk_id">, claim?: string): string {
  return passagePath(c.document.id, c.chunk_id, claim);
}

/**
 * The answer as copied or exported: display numbers in the text, then the reference list of the cited sources
 * (with `href`, each a Markdown link to where it opens).
 */
export function answerWithReferences(
  text: string,
  byN: Map<number, Citation>,
  heading: string,
  page: (p: number) => string,
  href?: (c: Citation) => string,
): string {
  const body = text.replace(MARKER, (whole, num: string) => {
    const c = byN.get(Number(num));
    return c ? `[${c.n}]` : whole;
  });
  const cited = [...byN.values()].filter((c) => citedNumbers(body).includes(c.n)).sort((a, b) => a.n - b.n);
  if (cited.length === 0) return body;
  const line = (c: Citation) => {
    const label = citationLabel(c, page);
    return `[${c.n}] ${href ? `[${htmlAsText(label).replace(/[[\]]/g, "\\$&")}](${href(c)})` : label}`;
  };
  return `${body.trimEnd()}\n\n${heading}\n${cited.map(line).join(href ? "  \n" : "\n")}\n`;
}

/** The citation check's support of each cited chunk, by chunk id: the weakest sentence citing it. */
export function supportByChunk(check: CitationCheck, byN: ReadonlyMap<number, Citation>): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of check.sentences) {
    for (const c of s.citations) {
      const id = byN.get(c.n)?.chunk_id;
      if (id) out.set(id, Math.min(out.get(id) ?? 1, c.support));
    }
  }
  return out;
}

/**
 * Whether an answer says nothing but what the FAQ entry's answer says (the offline answerer quoting the entry):
 * every line of it, without citation markers, list bullets and its "From the knowledge base:" intro, is in the
 * entry's text. The FAQ card then shows the entry once, drawn as Markdown, instead of the answer repeating it.
 */
export function repeatsFaq(answer: string, faqText: string): boolean {
  const fold = (s: string) => plainText(s).toLowerCase();
  const entry = fold(faqText);
  const lines = stripCitations(answer)
    .split("\n")
    .map((l) => fold(l))
    .filter((l) => l !== "" && !/[:：]$/.test(l));
  return lines.length > 0 && lines.every((l) => entry.includes(l));
}
