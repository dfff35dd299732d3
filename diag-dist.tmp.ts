import { readFileSync } from "node:fs";
import { readPassages, questionTerms } from "@/lib/agent/answer";
const k = Number(process.env.K ?? 5);
for (const f of process.argv.slice(2)) {
  const rows = JSON.parse(readFileSync(f, "utf8"));
  const chunkS: number[] = [], sentS: number[] = [];
  for (const { q, searches } of rows) {
    const ps = searches[0].results.slice(0, k).map((r: any, i: number) => ({ n: i + 1, context: `${r.document.title} › ${r.heading}`, text: r.text }));
    const rd = readPassages(questionTerms(q.question), ps);
    chunkS.push(Math.max(0, ...rd.chunks.map((c) => c.score)));
    sentS.push(rd.candidates[0]?.score ?? 0);
  }
  const qs = (a: number[]) => [0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9].map((p) => a.slice().sort((x, y) => x - y)[Math.floor(p * a.length)].toFixed(2)).join(" ");
  console.log(f.split("/").pop(), "chunk q05..q90:", qs(chunkS), "| sent:", qs(sentS));
}
