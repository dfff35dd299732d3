/**
 * How well the citation check catches wrong citations (`npm run eval -- --chat SET --fake-miscite`): a fake
 * model searches with the question, then answers with sentences taken from what it retrieved (the one that
 * holds the reference answer first, then the first sentence of other retrieved chunks), each with the
 * number of its chunk, except every third sentence, which cites another retrieved chunk that does not
 * contain it. The answer goes through runChat like any model's; its `data-check` says which citations were
 * moved or flagged.
 */

import { cleanSentence, splitSentences } from "@/lib/agent/extractive";
import { createPlannedModel, readTurn } from "@/lib/agent/offline-model";
import type { CitationCheck } from "@/lib/agent/support";
import type { EvalQuestion } from "@/lib/retrieve/eval-metrics";
import { askChat, OFFLINE_CHAT, referencesOf } from "./harness";

interface Written {
  text: string;
  wrong: boolean;
}

const fold = (s: string) => s.normalize("NFKC").toLowerCase().replace(/\s+/g, " ");

/** The fake model; `written` receives each answer's sentences and whether their citation is wrong. */
function miscitingModel(references: readonly string[], written: Written[][], counter: { i: number }) {
  return createPlannedModel("fake-miscite", (options) => {
    const { question, searches } = readTurn(options.prompt);
    if (searches.length === 0) return { kind: "search", queries: [question] };
    const passages = searches.flatMap((s) => s.passages);
    const sentences = passages.flatMap((p, rank) =>
      splitSentences(p.text)
        .map((s) => cleanSentence(s.text))
        .filter((t) => t.split(/\s+/).length >= 6 || /\p{Script=Han}{12}/u.test(t))
        .map((text, index) => ({ n: p.n, text, rank, index })),
    );
    const gold = sentences.find((s) => references.some((r) => fold(s.text).includes(fold(r))));
    const chosen = gold ? [gold] : [];
    for (const s of sentences) {
      if (chosen.length >= 3) break;
      if (s.index === 0 && !chosen.some((c) => c.n === s.n || fold(c.text) === fold(s.text))) chosen.push(s);
    }
    const out: Written[] = [];
    const lines = chosen.map((s) => {
      let n = s.n;
      let wrong = false;
      if (counter.i++ % 3 === 2) {
        const other = passages.find((p) => p.n !== s.n && !fold(p.text).includes(fold(s.text)));
        if (other) {
          n = other.n;
          wrong = true;
        }
      }
      out.push({ text: s.text, wrong });
      return `- ${s.text} [${n}]`;
    });
    written.push(out);
    return { kind: "answer", text: lines.join("\n") };
  });
}

export interface MisciteSummary {
  wrong: number;
  caught: number;
  right: number;
  flagged: number;
  /** Wrong citations the check let through, and right ones it moved or flagged: the sentence and what the check said. */
  misses: string[];
}

/** Asks each question of the fake model through runChat and counts what the citation check moved or flagged. */
export async function evalMiscite(mcpUrl: string, questions: readonly EvalQuestion[]): Promise<MisciteSummary> {
  const sum: MisciteSummary = { wrong: 0, caught: 0, right: 0, flagged: 0, misses: [] };
  const counter = { i: 0 };
  for (const q of questions) {
    const written: Written[][] = [];
    const model = miscitingModel(referencesOf(q), written, counter);
    const turn = await askChat(mcpUrl, [{ role: "user", content: q.question }], OFFLINE_CHAT, model);
    const check = turn.events.filter((e) => e.type === "data-check").at(-1)?.data as CitationCheck | undefined;
    const answer = written.at(-1) ?? [];
    answer.forEach((w, i) => {
      const s = check?.sentences.find((x) => fold(x.text) === fold(w.text)) ?? check?.sentences[i];
      const changed = !!s && (s.unsupported !== undefined || s.citations.some((c) => c.from !== undefined));
      if (w.wrong) {
        sum.wrong++;
        if (changed) sum.caught++;
      } else {
        sum.right++;
        if (changed) sum.flagged++;
      }
      if (w.wrong !== changed) sum.misses.push(`${w.wrong ? "wrong, kept" : "right, changed"}: ${w.text} → ${JSON.stringify(s ?? null)}`);
    });
  }
  return sum;
}
