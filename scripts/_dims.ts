import path from "node:path";
import { createOfflineEmbedder } from "@/lib/embed/offline";
import { loadEvalSet, runEval, subsetOf } from "@/lib/retrieve/eval-harness";
const dims = process.argv.slice(2).map(Number);
const f = (s: { recallAt1: number; recallAt5: number; recallAt10: number; mrrAt10: number }) => `R@1 ${s.recallAt1.toFixed(3)} R@5 ${s.recallAt5.toFixed(3)} R@10 ${s.recallAt10.toFixed(3)} MRR ${s.mrrAt10.toFixed(3)}`;
for (const d of dims) {
  const c = await loadEvalSet(path.resolve("fixtures/eval/cmrc2018-zh-subset"));
  const cs = subsetOf(c, 150, 100);
  for (const mode of ["hybrid", "vector"] as const) {
    const r = await runEval(c, { questions: cs.questions, docs: cs.docs, topK: 10, embedder: createOfflineEmbedder(d), tuning: { mode } });
    console.log(`dim ${d} ${mode} cmrc-subset passage ${f(r.passage)} query p50 ${r.queryMs.p50.toFixed(1)} ms`);
  }
  const s = await loadEvalSet(path.resolve("fixtures/eval/squad1.1-en-subset"));
  const docs = s.docs.slice(0, 10);
  const qs = s.questions.filter((q) => docs.includes(q.gold_doc));
  for (const mode of ["hybrid", "vector"] as const) {
    const r = await runEval(s, { questions: qs, docs, topK: 10, embedder: createOfflineEmbedder(d), tuning: { mode } });
    console.log(`dim ${d} ${mode} squad-subset passage ${f(r.passage)} document R@1 ${r.document.recallAt1.toFixed(3)} query p50 ${r.queryMs.p50.toFixed(1)} ms`);
  }
}
