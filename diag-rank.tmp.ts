import { readFileSync } from "node:fs";
import { readPassages, questionTerms, ANSWER_TUNING } from "@/lib/agent/answer";
Object.assign(ANSWER_TUNING, JSON.parse(process.env.T ?? "{}"));
import { answerContained, referencesOf } from "@/lib/agent/eval-chat";
const f = process.argv[2]; const rows = JSON.parse(readFileSync(f, "utf8"));
const hist: Record<string, number> = {};
for (const { q, searches } of rows) {
  const ps = searches[0].results.slice(0, 5).map((r: any, i: number) => ({ n: i + 1, context: `${r.document.title} › ${r.heading}`, text: r.text }));
  const rd = readPassages(questionTerms(q.question), ps);
  const i = rd.candidates.findIndex((c) => answerContained(c.span.text, referencesOf(q)));
  const inChunks = ps.some((p: any) => answerContained(p.text, referencesOf(q)));
  const key = i < 0 ? (inChunks ? "notCandidate" : "notRetrieved") : i < 5 ? String(i) : "5+";
  hist[key] = (hist[key] ?? 0) + 1;
}
console.log(f, hist);
