#!/usr/bin/env node
// Rebuilds fixtures/eval/* — the small, openly licensed eval subsets the test suite needs — from the full
// sets (default ../shared/eval). Run once by a maintainer; the tests read only fixtures/eval.
// crud-rag-zh is never vendored: its news texts are for measurement only.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const from = path.resolve(process.argv[2] ?? path.join(root, "../shared/eval"));
const to = path.join(root, "fixtures/eval");
const jsonl = (file) =>
  readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));

/** Copies the chosen documents, their corpus passages and the chosen questions. */
function vendor(set, name, pick) {
  const dir = path.join(from, set);
  const questions = jsonl(path.join(dir, "questions.jsonl"));
  const corpus = jsonl(path.join(dir, "corpus.jsonl"));
  const docs = readdirSync(path.join(dir, "docs"))
    .filter((d) => d.endsWith(".md"))
    .sort();
  const chosen = pick(questions, docs);
  const docSet = new Set(chosen.docs);
  const out = path.join(to, name);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(path.join(out, "docs"), { recursive: true });
  for (const d of chosen.docs) copyFileSync(path.join(dir, "docs", d), path.join(out, "docs", d));
  const lines = (rows) => `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`;
  writeFileSync(path.join(out, "corpus.jsonl"), lines(corpus.filter((p) => docSet.has(p.doc))));
  writeFileSync(path.join(out, "questions.jsonl"), lines(chosen.questions));
  console.log(`${name}: ${chosen.docs.length} docs, ${chosen.questions.length} questions`);
}

// CMRC: the first 150 questions, their documents, and the first 100 other documents by name.
vendor("cmrc2018-dev-zh", "cmrc2018-zh-subset", (qs, docs) => {
  const questions = qs.slice(0, 150);
  const gold = new Set(questions.map((q) => q.gold_doc));
  return { questions, docs: [...gold, ...docs.filter((d) => !gold.has(d)).slice(0, 100)].sort() };
});
// SQuAD: the first 10 articles by name and every question about them.
vendor("squad1.1-dev-en", "squad1.1-en-subset", (qs, docs) => {
  const chosen = docs.slice(0, 10);
  return { questions: qs.filter((q) => chosen.includes(q.gold_doc)), docs: chosen };
});
// COVID-QA: the first 20 papers by name and every question about them.
vendor("covidqa-en", "covidqa-en-subset", (qs, docs) => {
  const chosen = docs.slice(0, 20);
  return { questions: qs.filter((q) => chosen.includes(q.gold_doc)), docs: chosen };
});
