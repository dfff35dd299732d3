/**
 * The offline FAQ match (lexical only, match.ts) over the accepted entries' question tokens, held in memory:
 * a token → entries posting list, so a query scores only the entries sharing a token with it.
 */
import { bestOverlap, matchScore, questionTokens, STRONG_LEXICAL } from "./match";
import type { FaqHit, FaqRecord } from "./types";

export interface LexicalIndex {
  entries: { faq: FaqRecord; questions: Set<string>[] }[];
  postings: Map<string, number[]>;
}

/** The question and its phrasings: what a query is matched against. */
export const faqTexts = (f: Pick<FaqRecord, "question" | "phrasings">) => [f.question, ...f.phrasings];

export function buildLexicalIndex(faqs: readonly FaqRecord[]): LexicalIndex {
  const entries = faqs.map((faq) => ({ faq, questions: faqTexts(faq).map(questionTokens) }));
  const postings = new Map<string, number[]>();
  for (const [i, e] of entries.entries()) {
    for (const token of new Set(e.questions.flatMap((s) => [...s]))) {
      const list = postings.get(token);
      if (list) list.push(i);
      else postings.set(token, [i]);
    }
  }
  return { entries, postings };
}

/** The entries matching `q` (in `kbs`, when given), unsorted. */
export function lexicalHits({ entries, postings }: LexicalIndex, q: string, kbs: readonly string[] | undefined): FaqHit[] {
  const query = questionTokens(q);
  const candidates = new Set([...query].flatMap((t) => postings.get(t) ?? []));
  const hits: FaqHit[] = [];
  for (const i of candidates) {
    const { faq, questions } = entries[i];
    if (kbs && !kbs.includes(faq.kb)) continue;
    const score = matchScore(bestOverlap(query, questions), 0, true);
    if (score > 0) hits.push({ faq, score, strong: score >= STRONG_LEXICAL });
  }
  return hits;
}
