/**
 * Offline follow-up suggestions: `npm run eval -- --follow-ups <eval set dir> [--limit 30] [--store DIR] [--misses N]`.
 *
 * Asks the set's first --limit questions through runChat (the code behind /api/chat, offline answerer), then
 * asks each suggested question. A suggestion counts as answered from the retrieved passages when its answer
 * is not a refusal and cites the passage the suggestion was built from (so that passage was retrieved again
 * in the top k and the answerer took its answer from it); the goal is ≥ 90 %. It counts as relevant when the
 * passage its answer cites first lies in a document the original answer cites: it stays on the question's topic.
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { type Citation, citedNumbers } from "@/lib/agent/citations";
import { isRefusal } from "@/lib/agent/offline-model";
import type { FollowUp } from "@/lib/agent/protocol";
import { loadEvalSet } from "@/lib/retrieve/eval-harness";
import { askChat, type ChatTurn } from "./eval-chat/harness";
import { openSetChat, pct } from "./eval-chat/set-store";

const USAGE = "Usage: npm run eval -- --follow-ups <eval set dir> [--limit 30] [--store DIR] [--misses N]";

type Events = Record<string, unknown>[];

function lastData<T>(events: Events, type: string): T | undefined {
  return events.filter((e) => e.type === type).at(-1)?.data as T | undefined;
}

/** The citations an answer's text actually cites, in the order it first cites them. */
function citedCitations(turn: ChatTurn): Citation[] {
  const citations = lastData<{ citations: Citation[] }>(turn.events, "data-citations")?.citations ?? [];
  return citedNumbers(turn.text).flatMap((n) => citations.filter((c) => c.n === n));
}

export interface FollowUpReport {
  turns: number;
  /** Answers with two or three suggestions. */
  withSuggestions: number;
  suggested: number;
  /** Suggestions whose answer cites the passage they were built from. */
  answered: number;
  /** Suggestions whose answer cites first a passage of a document the original answer cites. */
  relevant: number;
  misses: string[];
}

/** Asks each question, then each of its suggestions, through the app's MCP endpoint at `mcpUrl`. */
export async function followUpReport(
  mcpUrl: string,
  questions: readonly string[],
  onTurn?: (done: number) => void,
): Promise<FollowUpReport> {
  const r: FollowUpReport = { turns: 0, withSuggestions: 0, suggested: 0, answered: 0, relevant: 0, misses: [] };
  for (const question of questions) {
    const turn = await askChat(mcpUrl, [{ role: "user", content: question }]);
    r.turns++;
    const topicDocs = new Set(citedCitations(turn).map((c) => c.document.id));
    const suggestions = lastData<{ questions: FollowUp[] }>(turn.events, "data-followups")?.questions ?? [];
    if (suggestions.length >= 2) r.withSuggestions++;
    for (const s of suggestions) {
      r.suggested++;
      const next = await askChat(mcpUrl, [{ role: "user", content: s.question }]);
      const cited = isRefusal(next.text) ? [] : citedCitations(next);
      if (cited.some((c) => c.chunk_id === s.from)) r.answered++;
      else r.misses.push(`${question} → ${s.question}\n    → ${next.text.replace(/\s+/g, " ").slice(0, 200)}`);
      if (cited.length && topicDocs.has(cited[0].document.id)) r.relevant++;
      else r.misses.push(`off topic: ${question} → ${s.question}`);
    }
    onTurn?.(r.turns);
  }
  return r;
}

export async function main(argv = process.argv.slice(2)): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv.filter((a) => a !== "--follow-ups"),
    allowPositionals: true,
    options: {
      limit: { type: "string", default: "30" },
      store: { type: "string" },
      misses: { type: "string", default: "0" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help || positionals.length !== 1) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  const limit = Number.parseInt(values.limit!, 10);
  if (!(limit > 0)) {
    console.error(`--limit must be a positive integer.\n${USAGE}`);
    return 2;
  }
  const set = await loadEvalSet(path.resolve(positionals[0]));
  const questions = set.questions.slice(0, limit).map((q) => q.question);
  const { mcp, close } = await openSetChat(set, values.store, "kb-eval-followups-");
  try {
    const r = await followUpReport(mcp.url, questions, (done) => {
      if (done % 10 === 0) process.stdout.write(`  ${done}/${questions.length}\r`);
    });
    console.log(`\n${path.basename(set.dir)}: offline follow-up suggestions after ${r.turns} questions`);
    console.log(`  answers with 2–3 suggestions ${pct(r.withSuggestions, r.turns)}`);
    console.log(`  suggestions answered from their passage ${pct(r.answered, r.suggested)}`);
    console.log(`  relevance: suggestions answered from a document the question's answer cites ${pct(r.relevant, r.suggested)}`);
    for (const m of r.misses.slice(0, Number.parseInt(values.misses!, 10) || 0)) console.log(`  miss ${m}`);
  } finally {
    await close();
  }
  return 0;
}
