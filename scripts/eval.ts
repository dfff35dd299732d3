/**
 * Retrieval quality on an eval set:
 *   npm run eval -- <eval set dir> [--limit N] [--top-k 10] [--misses N] [--cache DIR] [--ablate]
 * Ingests the set's docs/ into a temporary store (or, with --cache, into DIR, reused by later runs while the
 * embedder, index-text version and document list are unchanged), asks every question through searchKnowledge
 * (the code the MCP search tool uses), and prints recall@1/5/10 and MRR@10 at passage and document level,
 * per question type where the set has types. --ablate adds one row per retrieval component switched off
 * (and plain BM25). Each run adds a SQLite FTS5 reference row over the set's own passages
 * (lib/retrieve/fts5-reference.ts), scored the same way. Metric definitions: lib/retrieve/eval-metrics.ts.
 */
// First: on an older Node.js or before `npm ci` this stops with what to do.
import "./node-version.mjs";
import "./command-line";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import cliProgress from "cli-progress";
import { createOfflineEmbedder, getEmbedder, makesVectors } from "@/lib/embed";
import { ABLATIONS, type SearchTuning } from "@/lib/retrieve";
import { askAll, askFts5, type EvalReport, loadEvalSet, openCachedSet, subsetOf } from "@/lib/retrieve/eval-harness";
import { type RecallSummary, summarize } from "@/lib/retrieve/eval-metrics";

const USAGE = "Usage: npm run eval -- <eval set dir> [--limit N] [--top-k 10] [--misses N] [--cache DIR] [--ablate]";

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      limit: { type: "string" },
      "top-k": { type: "string", default: "10" },
      misses: { type: "string", default: "0" },
      cache: { type: "string" },
      ablate: { type: "boolean", default: false },
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
  // The vector rows of --ablate need vectors: with none configured, the offline hashing ones (unused by the default).
  const configured = getEmbedder();
  const embedder = values.ablate && !makesVectors(configured) ? createOfflineEmbedder() : configured;
  console.log(`${path.basename(set.dir)}: ${set.docs.length} documents, ${questions.length} questions, embedder ${embedder.name}`);

  const bar = new cliProgress.SingleBar(
    { format: "{phase} [{bar}] {value}/{total}", hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  const tmp = values.cache ? null : await mkdtemp(path.join(os.tmpdir(), "kb-eval-"));
  try {
    bar.start(set.docs.length, 0, { phase: "ingest" });
    const { store, ingest } = await openCachedSet(set, values.cache ? path.resolve(values.cache) : tmp!, {
      embedder,
      onIngest: (done) => bar.update(done),
    });
    bar.stop();
    try {
      const ask = async (label: string, tuning: Partial<SearchTuning>) => {
        bar.start(questions.length, 0, { phase: label.padEnd(6).slice(0, 6) });
        const r = await askAll(store, set, { questions, topK, tuning, onQuery: (done) => bar.update(done) });
        bar.stop();
        return r;
      };
      const report = await ask("query", {});
      bar.start(questions.length, 0, { phase: "fts5  " });
      const fts5 = await askFts5(set, { questions, topK, onQuery: (done) => bar.update(done) });
      bar.stop();
      console.log();
      for (const line of table(report)) console.log(line);
      console.log(row("SQLite FTS5 passage", fts5.passage));
      console.log(row("SQLite FTS5 document", fts5.document));
      console.log(
        `SQLite FTS5 (reference: the set's own passages, porter unicode61, CJK pairs, title ×2, BM25) p50 ${fts5.queryMs.p50.toFixed(1)} ms`,
      );
      if (ingest) console.log(`ingest ${ingest.seconds.toFixed(1)} s (${ingest.documents} docs, ${ingest.chunks} chunks)`);
      console.log(
        `query mean ${report.queryMs.mean.toFixed(1)} ms, p50 ${report.queryMs.p50.toFixed(1)} ms, p95 ${report.queryMs.p95.toFixed(1)} ms`,
      );
      const showMisses = Number.parseInt(values.misses!, 10) || 0;
      for (const m of report.misses.slice(0, showMisses))
        console.log(`miss ${m.id}: ${m.question}  gold ${m.gold_doc}  got ${m.top.join(", ")}`);

      if (values.ablate) {
        const rows: string[] = [ablationRow("all components", report, report)];
        for (const [name, tuning] of Object.entries(ABLATIONS)) rows.push(ablationRow(name, await ask(name, tuning), report));
        console.log(`\nablation (passage level; Δ against all components)\n${"".padEnd(24)} R@1    R@5    R@10   MRR@10  doc R@5  p50 ms`);
        for (const r of rows) console.log(r);
      }
    } finally {
      await store.close();
    }
  } finally {
    if (tmp) await rm(tmp, { recursive: true, force: true });
  }
  return 0;
}

function row(label: string, s: RecallSummary): string {
  return `${label.padEnd(24)} R@1 ${s.recallAt1.toFixed(3)}  R@5 ${s.recallAt5.toFixed(3)}  R@10 ${s.recallAt10.toFixed(3)}  MRR@10 ${s.mrrAt10.toFixed(3)}  (${s.questions})`;
}

/** Passage and document rows, then passage rows per question type when the set has more than one. */
function table(r: Pick<EvalReport, "passage" | "document" | "ranks">): string[] {
  const lines = [row("passage", r.passage), row("document", r.document)];
  const types = [...new Set(r.ranks.map((q) => q.type))].sort();
  if (types.length > 1) {
    for (const t of types) lines.push(row(`  passage ${t}`, summarize(r.ranks.filter((q) => q.type === t).map((q) => q.passage))));
  }
  return lines;
}

function ablationRow(label: string, r: Awaited<ReturnType<typeof askAll>>, base: Awaited<ReturnType<typeof askAll>>): string {
  const f = (v: number, b: number) =>
    label === "all components" ? v.toFixed(3) : `${v.toFixed(3)}${v - b >= 0 ? "+" : "-"}${Math.abs(v - b).toFixed(3)}`;
  const p = r.passage;
  const b = base.passage;
  return (
    `${label.padEnd(24)} ${f(p.recallAt1, b.recallAt1)}  ${f(p.recallAt5, b.recallAt5)}  ${f(p.recallAt10, b.recallAt10)}  ` +
    `${f(p.mrrAt10, b.mrrAt10)}  ${f(r.document.recallAt5, base.document.recallAt5)}  ${r.queryMs.p50.toFixed(1)}`
  );
}

// `--chat`: answer quality through the chat instead of retrieval quality (scripts/eval-chat.ts).
// `--follow-ups`: the offline follow-up suggestions (scripts/eval-followups.ts).
const run = process.argv.includes("--chat")
  ? () => import("./eval-chat").then((m) => m.main())
  : process.argv.includes("--follow-ups")
    ? () => import("./eval-followups").then((m) => m.main())
    : main;
run().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
