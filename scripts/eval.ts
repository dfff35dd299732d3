/**
 * Retrieval quality on an eval set: `npm run eval -- <eval set dir> [--limit N] [--top-k 10] [--misses N]`.
 * Ingests the set's docs/ into a temporary store (removed afterwards), asks every question through
 * searchKnowledge (the code the MCP search tool uses), and prints recall@1/5/10 and MRR@10 at passage
 * and document level. Metric definitions: lib/retrieve/eval-metrics.ts.
 */
import path from "node:path";
import { parseArgs } from "node:util";
import cliProgress from "cli-progress";
import { loadEvalSet, runEval, subsetOf } from "@/lib/retrieve/eval-harness";
import type { RecallSummary } from "@/lib/retrieve/eval-metrics";
import { getEmbedder } from "@/lib/embed";

const USAGE = "Usage: npm run eval -- <eval set dir> [--limit N] [--top-k 10] [--misses N]";

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      limit: { type: "string" },
      "top-k": { type: "string", default: "10" },
      misses: { type: "string", default: "0" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help || positionals.length !== 1) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  const topK = Number.parseInt(values["top-k"]!, 10);
  const limit = values.limit ? Number.parseInt(values.limit, 10) : undefined;
  if (!(topK >= 1 && topK <= 20) || (limit !== undefined && !(limit > 0))) {
    console.error(`--top-k must be 1..20 and --limit a positive integer.\n${USAGE}`);
    return 2;
  }

  const set = await loadEvalSet(path.resolve(positionals[0]));
  // --limit N: the first N questions, over all documents (distractors kept).
  const { questions } = limit ? subsetOf(set, limit, 0) : { questions: set.questions };
  const embedder = getEmbedder();
  console.log(`${path.basename(set.dir)}: ${set.docs.length} documents, ${questions.length} questions, embedder ${embedder.name}`);

  const bar = new cliProgress.SingleBar({ format: "{phase} [{bar}] {value}/{total}", hideCursor: true }, cliProgress.Presets.shades_classic);
  bar.start(set.docs.length, 0, { phase: "ingest" });
  const report = await runEval(set, {
    questions,
    topK,
    embedder,
    onIngest: (done) => bar.update(done),
    onQuery: (done, total) => {
      if (done === 1) {
        bar.setTotal(total);
        bar.update(0, { phase: "query " });
      }
      bar.update(done);
    },
  });
  bar.stop();

  const row = (label: string, s: RecallSummary) =>
    `${label.padEnd(10)} R@1 ${s.recallAt1.toFixed(3)}  R@5 ${s.recallAt5.toFixed(3)}  R@10 ${s.recallAt10.toFixed(3)}  MRR@10 ${s.mrrAt10.toFixed(3)}`;
  console.log(`\n${row("passage", report.passage)}\n${row("document", report.document)}`);
  console.log(
    `ingest ${report.ingestSeconds.toFixed(1)} s (${report.documents} docs, ${report.chunks} chunks); ` +
      `query mean ${report.queryMs.mean.toFixed(1)} ms, p50 ${report.queryMs.p50.toFixed(1)} ms, p95 ${report.queryMs.p95.toFixed(1)} ms`,
  );
  const showMisses = Number.parseInt(values.misses!, 10) || 0;
  for (const m of report.misses.slice(0, showMisses)) console.log(`miss ${m.id}: ${m.question}  gold ${m.gold_doc}  got ${m.top.join(", ")}`);
  return 0;
}

// `--chat`: answer quality through the chat instead of retrieval quality (scripts/eval-chat.ts).
const run = process.argv.includes("--chat") ? () => import("./eval-chat").then((m) => m.main()) : main;
run().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
