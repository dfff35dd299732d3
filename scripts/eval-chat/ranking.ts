/**
 * How far the offline answerer's sentence ranking can take its answers: for each question, the passages its
 * search returns are read as the answerer reads them (readPassages), and the eval counts how often the best
 * sentence holds the reference answer, one of the best two or three, and any retrieved passage. The first
 * figure bounds "answer in the first sentence"; the others bound what quoting more sentences can add.
 */
import { ANSWER_TUNING, readPassages } from "@/lib/agent/answer";
import { questionTerms } from "@/lib/agent/answer-terms";
import { expectation, SEARCH_TOP_K, toPassage } from "@/lib/agent/offline-model";
import { searchKnowledge } from "@/lib/retrieve";
import { hitContexts } from "@/lib/retrieve/context";
import type { EvalQuestion } from "@/lib/retrieve/eval-metrics";
import type { Store } from "@/lib/store";
import { toSearchResults } from "@/lib/tools/format";
import { answerContained, referencesOf } from "./harness";

export interface RankingCeiling {
  questions: number;
  /** Questions whose reference answer is in the best sentence, one of the best 2, one of the best 3. */
  best: number;
  top2: number;
  top3: number;
  /** Questions whose reference answer is anywhere in the retrieved passages. */
  retrieved: number;
}

export async function rankingCeiling(store: Store, questions: readonly EvalQuestion[]): Promise<RankingCeiling> {
  const out: RankingCeiling = { questions: questions.length, best: 0, top2: 0, top3: 0, retrieved: 0 };
  for (const q of questions) {
    const hits = await searchKnowledge(store, { query: q.question, topK: SEARCH_TOP_K });
    const passages = toSearchResults(hits, await hitContexts(store, hits)).map(toPassage);
    const refs = referencesOf(q);
    if (passages.some((p) => answerContained(p.text, refs))) out.retrieved++;
    const at = readPassages(questionTerms(q.question), passages, ANSWER_TUNING, expectation(q.question)).candidates.findIndex((c) =>
      answerContained(c.span.text, refs),
    );
    if (at === 0) out.best++;
    if (at >= 0 && at < 2) out.top2++;
    if (at >= 0 && at < 3) out.top3++;
  }
  return out;
}
