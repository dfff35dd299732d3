import { readFileSync } from "node:fs";
import { readPassages, questionTerms, ANSWER_TUNING } from "@/lib/agent/answer";
Object.assign(ANSWER_TUNING, JSON.parse(process.env.T ?? "{}"));
const k = Number(process.env.K ?? 5);
for (const f of process.argv.slice(2)) {
  const rows = JSON.parse(readFileSync(f, "utf8"));
  const chunkS: number[] = [];
  for (const { q, searches } of rows) {
    const ps = searches[0].results.slice(0, k).map((r: any, i: number) => ({ n: i + 1, context: `${r.document.title} › ${r.heading}`, text: r.text }));
    const rd = readPassages(questionTerms(q.question), ps);
    chunkS.push(Math.max(0, ...rd.chunks.map((c) => c.score)));
  }
  console.log(f.split("/").pop(), [0.35,0.4,0.42,0.45,0.48,0.5,0.55].map((t) => `${t}:${(100*chunkS.filter((s) => s < t).length/chunkS.length).toFixed(0)}%`).join(" "));
}
