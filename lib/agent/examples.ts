/**
 * Example questions for the empty chat, drawn from the headings of the indexed documents, phrased so
 * that the offline answerer can answer them too ("Tell me about annual leave", "介绍一下病假").
 */

import { HEADING_SEPARATOR } from "@/lib/chunk/heading";
import { hasCjk } from "@/lib/text/cjk";

export interface DocumentOutline {
  title: string;
  /** Heading paths of the document's chunks ("Handbook › Leave › Annual leave"), in order. */
  headings: string[];
}

const GENERIC = /^(introduction|overview|summary|contents|table of contents|about|faq|简介|概述|目录|前言|总则|附录)$/i;

function leaves(doc: DocumentOutline): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  const paths = [...new Set(doc.headings)];
  // Leaf sections only: "Leave" is too broad when "Leave › Sick leave" exists.
  const isParent = (p: string) => paths.some((q) => q !== p && q.startsWith(`${p}${HEADING_SEPARATOR}`));
  for (const path of paths) {
    if (isParent(path)) continue;
    const leaf = path
      .split(HEADING_SEPARATOR)
      .map((s) => s.trim())
      .filter(Boolean)
      .at(-1);
    if (!leaf || seen.has(leaf)) continue;
    seen.add(leaf);
    const clean = leaf
      .replace(/^[\d.、)\s]+/, "")
      .replace(/[:：]$/, "")
      .trim();
    if (clean.length < 2 || clean.length > 60 || GENERIC.test(clean) || clean.toLowerCase() === doc.title.trim().toLowerCase()) continue;
    out.push(clean);
  }
  return out;
}

const QUESTION = /[?？]$|^(how|what|which|who|whom|why|when|where|can|could|do|does|did|is|are|should|will|may)\b/i;

/** A heading that is already a question (FAQ style) is asked as is; any other becomes "Tell me about …". */
export function questionFor(topic: string): string {
  if (QUESTION.test(topic)) return /[?？]$/.test(topic) ? topic : `${topic}?`;
  return hasCjk(topic) ? `介绍一下${topic}` : `Tell me about ${/^[A-Z]{2}/.test(topic) ? topic : topic.toLowerCase()}`;
}

/** Up to `max` questions, taking one topic from each document in turn so that every document shows up. */
export function exampleQuestions(docs: readonly DocumentOutline[], max = 4): string[] {
  const topics = docs.map(leaves);
  const out: string[] = [];
  for (let round = 0; out.length < max && topics.some((t) => t.length > round); round++) {
    for (const t of topics) {
      const pick = t[round];
      if (pick && !out.includes(questionFor(pick))) out.push(questionFor(pick));
      if (out.length >= max) break;
    }
  }
  return out;
}
