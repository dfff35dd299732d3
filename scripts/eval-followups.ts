/**
 * Offline follow-up suggestions: `npm run eval -- --follow-ups <eval set dir> [--limit 30] [--store DIR] [--misses N]`.
 *
 * Asks the set's first --limit questions through runChat (the code behind /api/chat, offline answerer), then
 * asks each suggested question. A suggestion counts as answered from the retrieved passages when its answer
 * is not a refusal and cites the passage the suggestion was built from (so that passage was retrieved again
 * in the top k and the answerer took its answer from it). Prints that share; the goal is ≥ 90 %.
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { type Citation, citedNumbers } from "@/lib/agent/citations";
import { isRefusal } from "@/lib/agent/offline-model";
import type { FollowUp } from "@/lib/agent/protocol";
import { loadEvalSet } from "@/lib/retrieve/eval-harness";
import { askChat } from "./eval-chat/harness";
import { openSetChat, pct } from "./eval-chat/set-store";

const USAGE = "Usage: npm run eval -- --follow-ups <eval set dir> [--limit 30] [--store DIR] [--misses N]";

type Events = Record<string, unknown>[];

function lastData<T>(events: Events, type: string): T | undefined {
  return events.filter((e) => e.type === type).at(-1)?.data as T | undefined;
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
  const questions = set.questions.slice(0, limit);
  const { mcp, close } = await openSetChat(set, values.store, "kb-eval-followups-");
  try {
    let turns = 0;
    let withSuggestions = 0;
    let suggested = 0;
    let answered = 0;
    const misses: string[] = [];
    for (const q of questions) {
      const turn = await askChat(mcp.url, [{ role: "user", content: q.question }]);
      turns++;
      const suggestions = lastData<{ questions: FollowUp[] }>(turn.events, "data-followups")?.questions ?? [];
      if (suggestions.length >= 2) withSuggestions++;
      for (const s of suggestions) {
        suggested++;
        const next = await askChat(mcp.url, [{ role: "user", content: s.question }]);
        const cited = new Set(citedNumbers(next.text));
        const citations = lastData<{ citations: Citation[] }>(next.events, "data-citations")?.citations ?? [];
        const ok = !isRefusal(next.text) && citations.some((c) => c.chunk_id === s.from && cited.has(c.n));
        if (ok) answered++;
        else misses.push(`${q.question} → ${s.question}\n    → ${next.text.replace(/\s+/g, " ").slice(0, 200)}`);
      }
      if (turns % 10 === 0) process.stdout.write(`  ${turns}/${questions.length}\r`);
    }
    console.log(`\n${path.basename(set.dir)}: offline follow-up suggestions after ${turns} questions`);
    console.log(`  answers with 2–3 suggestions ${pct(withSuggestions, turns)}`);
    console.log(`  suggestions answered from their passage ${pct(answered, suggested)}`);
    for (const m of misses.slice(0, Number.parseInt(values.misses!, 10) || 0)) console.log(`  miss ${m}`);
  } finally {
    await close();
  }
  return 0;
}
