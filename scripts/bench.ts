/**
 * Throughput and latency: `npm run bench [-- --questions 200 --docs 300]`.
 * At scale: `npm run bench -- --scale N [--corpus DIR] [--port 4800] [--seconds 10] [--mixed SECONDS]` (scripts/bench-scale.ts).
 * Mixed load: `npm run bench -- --mixed SECONDS [--docs 600] [--port 4800]` (scripts/bench-mixed.ts).
 * Replicas on an object store: `npm run bench -- --replicas N [--corpus DIR]` (scripts/bench-replicas.ts).
 * OCR: `npm run bench -- --ocr [--pages 4]`: pages/s, CPU-s a page, character and word accuracy of scan-like pages a
 * language, beside tesseract's (scripts/bench-ocr.ts).
 * Sources: `npm run bench -- --sources [--items 1000]`: a first sync (items/s) and an unchanged re-sync from a real
 * Apache WebDAV, Dovecot IMAP and MediaWiki, with CPU-seconds (scripts/bench-sources.ts).
 * For a subset of each shared eval set: ingest throughput (docs/s, chunks/s) into a temporary store, then
 * query latency (mean/p50/p95) and passage recall@5 for the default retrieval versus the previous default
 * (fusion with a 0.1 vector vote, no query analysis, no reranker), plain BM25 and plain vector search, with
 * p50 ratios against the previous default and against BM25. Prints numbers only; no assertions.
 */
// First: on an older Node.js or before `npm ci` this stops with what to do.
import "./node-version.mjs";
import "./command-line";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createOfflineEmbedder, getEmbedder, makesVectors } from "@/lib/embed";
import { ABLATIONS, type SearchTuning } from "@/lib/retrieve";
import { askAll, ingestSet, loadEvalSet, subsetOf } from "@/lib/retrieve/eval-harness";
import { openStore } from "@/lib/store";
import { runMixedBench } from "./bench-mixed";
import { runOcrBench } from "./bench-ocr";
import { runReplicaBench } from "./bench-replicas";
import { runScaleBench } from "./bench-scale";
import { runSourcesBench } from "./bench-sources";

const SETS = ["cmrc2018-dev-zh", "squad1.1-dev-en", "covidqa-en"];

async function main() {
  const { values } = parseArgs({
    options: {
      questions: { type: "string", default: "200" },
      docs: { type: "string" },
      dir: { type: "string", default: path.resolve(import.meta.dirname, "../../shared/eval") },
      scale: { type: "string" },
      corpus: { type: "string" },
      port: { type: "string", default: "4800" },
      seconds: { type: "string", default: "10" },
      queries: { type: "string", default: "200" },
      mixed: { type: "string", default: "0" },
      keep: { type: "boolean", default: false },
      replicas: { type: "string" },
      ocr: { type: "boolean", default: false },
      pages: { type: "string", default: "4" },
      sources: { type: "boolean", default: false },
      items: { type: "string", default: "1000" },
    },
  });
  if (values.sources) {
    await runSourcesBench({ items: Number.parseInt(values.items!, 10) });
    return;
  }
  if (values.ocr) {
    await runOcrBench({ pages: Number.parseInt(values.pages!, 10) });
    return;
  }
  // The server benches' corpus, eval sets, port and query load.
  const served = {
    corpus: values.corpus ? path.resolve(values.corpus) : undefined,
    evalDir: values.dir!,
    port: Number.parseInt(values.port!, 10),
    seconds: Number(values.seconds),
    queries: Number.parseInt(values.queries!, 10),
  };
  if (values.replicas) {
    const ok = await runReplicaBench({ chunks: Number.parseInt(values.replicas, 10), ...served });
    process.exitCode = ok ? 0 : 1;
    return;
  }
  if (values.scale) {
    await runScaleBench({ scale: Number.parseInt(values.scale, 10), ...served, mixed: Number(values.mixed), keep: values.keep! });
    return;
  }
  if (Number(values.mixed) > 0) {
    await runMixedBench({
      docs: Number.parseInt(values.docs ?? "600", 10),
      evalDir: served.evalDir,
      corpus: served.corpus,
      port: served.port,
      seconds: Number(values.mixed),
      keep: values.keep!,
    });
    return;
  }
  const nQuestions = Number.parseInt(values.questions!, 10);
  const maxDocs = Number.parseInt(values.docs ?? "300", 10);
  // The "vector" and "previous" rows need vectors: with none configured, the offline hashing ones (unused by "default").
  const configured = getEmbedder();
  const embedder = makesVectors(configured) ? configured : createOfflineEmbedder();
  console.log(`embedder ${embedder.name}; ${os.cpus().length} CPUs; node ${process.version}\n`);

  for (const name of SETS) {
    const set = await loadEvalSet(path.join(values.dir!, name));
    // The first questions, their gold documents, and distractors up to maxDocs documents.
    const gold = new Set(set.questions.slice(0, nQuestions).map((q) => q.gold_doc));
    const { questions, docs } = subsetOf(set, nQuestions, Math.max(0, maxDocs - gold.size));
    const dir = await mkdtemp(path.join(os.tmpdir(), "kb-bench-"));
    try {
      const store = await openStore({ uri: dir, embedder });
      const ing = await ingestSet(store, set, docs);
      console.log(`${name}: ${docs.length} docs, ${ing.chunks} chunks, ${questions.length} questions`);
      console.log(
        `  ingest   ${ing.seconds.toFixed(1)} s  ${(docs.length / ing.seconds).toFixed(1)} docs/s  ${(ing.chunks / ing.seconds).toFixed(0)} chunks/s`,
      );
      const modes: [string, Partial<SearchTuning>][] = [
        ["bm25", { mode: "text", queryAnalysis: false, rerank: null }],
        ["vector", { mode: "vector", rerank: null }],
        ["previous", ABLATIONS["previous default"]],
        ["default", {}],
      ];
      const results: Record<string, Awaited<ReturnType<typeof askAll>>> = {};
      // Interleaved rounds, so load on the machine hits every mode alike; the first round is a warm-up.
      for (const round of [0, 1]) {
        for (const [label, tuning] of modes) {
          const r = await askAll(store, set, { questions: round ? questions : questions.slice(0, 10), topK: 10, tuning });
          if (round) results[label] = r;
        }
      }
      const base = results.bm25;
      const prev = results.previous;
      for (const [label] of modes) {
        const r = results[label];
        console.log(
          `  ${label.padEnd(8)}  query mean ${r.queryMs.mean.toFixed(1)} ms  p50 ${r.queryMs.p50.toFixed(1)} ms  p95 ${r.queryMs.p95.toFixed(1)} ms` +
            `  (p50 x${(r.queryMs.p50 / prev.queryMs.p50).toFixed(2)} vs previous, x${(r.queryMs.p50 / base.queryMs.p50).toFixed(2)} vs bm25)` +
            `  passage R@5 ${r.passage.recallAt5.toFixed(3)}  MRR@10 ${r.passage.mrrAt10.toFixed(3)}`,
        );
      }
      await store.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    console.log();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
