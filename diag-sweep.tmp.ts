import { readFileSync } from "node:fs";
import { CitationRegistry, formatResultsForModel } from "@/lib/agent/citations";
import { writeAnswer, isRefusal } from "@/lib/agent/offline-model";
import { ANSWER_TUNING } from "@/lib/agent/answer";
import { answerContained, referencesOf } from "@/lib/agent/eval-chat";
const k = Number(process.env.K ?? 5);
const over = JSON.parse(process.env.T ?? "{}");
Object.assign(ANSWER_TUNING, over);
const show = Number(process.env.SHOW ?? 0);
for (const f of process.argv.slice(2)) {
  const rows = JSON.parse(readFileSync(f, "utf8"));
  let c = 0, r = 0, cited = 0, len = 0; const misses: string[] = [];
  for (const { q, searches } of rows) {
    const reg = new CitationRegistry();
    const s = searches.map((x: any) => ({ query: x.query, result: formatResultsForModel(reg.add(x.results.slice(0, k))) }));
    const text = writeAnswer(q.question, s);
    const ok = answerContained(text, referencesOf(q)); const ref = isRefusal(text);
    c += +ok; r += +ref; cited += +/\[\d+\]/.test(text); len += text.length;
    if (!ok && misses.length < show) misses.push(`${ref ? "REFUSED " : ""}${q.question} [${q.answer}]\n   → ${text.replace(/\s+/g, " ").slice(0, 350)}`);
  }
  const n = rows.length;
  console.log(`${f.split("/").pop()}: n=${n} contained ${(100*c/n).toFixed(1)}% refused ${(100*r/n).toFixed(1)}% cited ${(100*cited/n).toFixed(1)}% avgLen ${(len/n).toFixed(0)}`);
  for (const m of misses) console.log("  " + m);
}
