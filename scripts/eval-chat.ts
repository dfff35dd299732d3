/**
 * Answer quality of the chat: `npm run eval -- --chat <eval set dir> [--limit N] [--max-answer 30]
 * [--store DIR] [--unanswerable <other set dir>] [--fake-miscite] [--misses N]`.
 *
 * Ingests the set's docs/ into a store (a temporary one, or --store DIR: ingested once and reused on later
 * runs), serves the app's MCP endpoint for it on loopback, and asks each question whose reference answer has
 * at most --max-answer characters (the first --limit of them) through runChat, the code behind /api/chat,
 * with the configured model (offline by default). Prints how often the answer text contains the reference
 * answer, and in its first sentence, the median sentences per answer, how often it cites and refuses, and
 * how far the offline answerer's sentence ranking bounds those figures (scripts/eval-chat/ranking.ts); with
 * --unanswerable, also how often questions of another set (which this set's documents cannot answer) are
 * refused; with --fake-miscite, the share of deliberately wrong citations of a fake model that the citation
 * check moves or flags, and of right ones that it does (scripts/eval-chat/miscite.ts).
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { loadEvalSet } from "@/lib/retrieve/eval-harness";
import { type ChatEvalSummary, evalChat, shortAnswerQuestions } from "./eval-chat/harness";
import { evalMiscite } from "./eval-chat/miscite";
import { rankingCeiling } from "./eval-chat/ranking";
import { openSetChat, pct } from "./eval-chat/set-store";

const USAGE =
  "Usage: npm run eval -- --chat <eval set dir> [--limit N] [--max-answer 30] [--store DIR] [--unanswerable <set dir>] [--fake-miscite] [--misses N]";

export async function main(argv = process.argv.slice(2)): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv.filter((a) => a !== "--chat"),
    allowPositionals: true,
    options: {
      limit: { type: "string" },
      "max-answer": { type: "string", default: "30" },
      store: { type: "string" },
      unanswerable: { type: "string" },
      "fake-miscite": { type: "boolean" },
      misses: { type: "string", default: "0" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help || positionals.length !== 1) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  const limit = values.limit ? Number.parseInt(values.limit, 10) : undefined;
  const maxAnswer = Number.parseInt(values["max-answer"]!, 10);
  if ((limit !== undefined && !(limit > 0)) || !(maxAnswer > 0)) {
    console.error(`--limit and --max-answer must be positive integers.\n${USAGE}`);
    return 2;
  }

  const set = await loadEvalSet(path.resolve(positionals[0]));
  const questions = shortAnswerQuestions(set.questions, maxAnswer).slice(0, limit);
  const other = values.unanswerable ? await loadEvalSet(path.resolve(values.unanswerable)) : null;
  const unanswerable = other ? other.questions.slice(0, limit) : [];

  const { store, mcp, close } = await openSetChat(set, values.store, "kb-eval-chat-");
  try {
    const progress = (label: string) => (done: number, total: number) => {
      if (done % 10 === 0 || done === total) process.stdout.write(`  ${label} ${done}/${total}\r`);
    };
    if (values["fake-miscite"]) {
      const m = await evalMiscite(mcp.url, questions);
      console.log(`\n${path.basename(set.dir)}: citation check on a fake model's answers (${questions.length} questions)`);
      console.log(`  wrong citations moved or flagged ${pct(m.caught, m.wrong)}`);
      console.log(`  right citations moved or flagged ${pct(m.flagged, m.right)}`);
      for (const x of m.misses.slice(0, Number.parseInt(values.misses!, 10) || 0)) console.log(`  ${x.slice(0, 600)}`);
      return 0;
    }
    const t0 = Date.now();
    const s = await evalChat(mcp.url, questions, { onQuestion: progress("ask") });
    console.log(
      `\n${path.basename(set.dir)}: ${s.questions} questions with answers ≤ ${maxAnswer} characters (${((Date.now() - t0) / 1000).toFixed(1)} s)`,
    );
    console.log(`  answer contained ${pct(s.contained, s.questions)}`);
    console.log(`  in first sentence ${pct(s.first, s.contained)} of those contained`);
    console.log(`  sentences per answer, median ${s.medianSentences}`);
    console.log(`  cited            ${pct(s.cited, s.questions)}`);
    console.log(`  refused          ${pct(s.refused, s.questions)} (and "closest passage" replies ${pct(s.closest, s.questions)})`);
    printMisses(s, Number.parseInt(values.misses!, 10) || 0);
    const r = await rankingCeiling(store, questions);
    console.log(
      `  the answerer's sentence ranking: best sentence holds the answer ${pct(r.best, r.questions)}, one of the best 2 ${pct(r.top2, r.questions)}, of the best 3 ${pct(r.top3, r.questions)}; any retrieved passage ${pct(r.retrieved, r.questions)}`,
    );
    if (other) {
      const u = await evalChat(mcp.url, unanswerable, { answerable: false, onQuestion: progress("unanswerable") });
      console.log(
        `\nunanswerable (${u.questions} questions of ${path.basename(other.dir)}): refused ${pct(u.refused, u.questions)}; counting "closest passage" replies as refused too ${pct(u.refused + u.closest, u.questions)}`,
      );
      const wrong = u.items.filter((x) => !x.refused).slice(0, Number.parseInt(values.misses!, 10) || 0);
      for (const x of wrong) console.log(`  answered ${x.id}: ${x.question}\n    → ${x.text.replace(/\s+/g, " ").slice(0, 300)}`);
    }
  } finally {
    await close();
  }
  return 0;
}

function printMisses(s: ChatEvalSummary, n: number) {
  for (const x of s.items.filter((i) => !i.contained).slice(0, n)) {
    console.log(
      `  miss ${x.id}${x.refused ? " (refused)" : ""}: ${x.question}  [gold: ${x.answer}]\n    → ${x.text.replace(/\s+/g, " ").slice(0, 400)}`,
    );
  }
}
