// temp: cache search tool results (as the model reads them) for eval questions
import { writeFileSync } from "node:fs";
import { loadEvalSet } from "@/lib/retrieve/eval-harness";
import { openStore } from "@/lib/store";
import { getEmbedder } from "@/lib/embed";
import { searchKnowledge } from "@/lib/retrieve";
import { toSearchResults } from "@/mcp/format";
import { CitationRegistry, formatResultsForModel } from "@/lib/agent/citations";
import { shortAnswerQuestions } from "@/lib/agent/eval-chat";
import { splitQuestion } from "@/lib/agent/decompose";
const [storeDir, setDir, qDir, n, out, all] = process.argv.slice(2);
const store = await openStore({ uri: storeDir, embedder: getEmbedder() });
const qset = await loadEvalSet(qDir);
const qs = (all ? qset.questions : shortAnswerQuestions(qset.questions)).slice(0, Number(n));
const rows = [];
for (const q of qs) {
  const parts = splitQuestion(q.question);
  const searches = [];
  const reg = new CitationRegistry();
  for (const p of parts) {
    const hits = await searchKnowledge(store, { query: p, topK: 8 });
    searches.push({ query: p, results: toSearchResults(hits).map(({ ref, ...r }) => r) });
  }
  rows.push({ q, searches });
}
writeFileSync(out, JSON.stringify(rows));
store.close();
console.log("cached", rows.length);
