/**
 * `npm run eval -- --follow-ups` on the vendored English and Chinese subsets (the first questions of each): offline
 * suggestions must be answered from their passage and stay on the question's topic (relevance: the passage a
 * suggestion's answer cites first lies in a document the question's answer cites), English at least as relevant
 * as Chinese. The floors sit below the figures measured on these questions.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadEvalSet } from "@/lib/retrieve/eval-harness";
import { openSetChat } from "./eval-chat/set-store";
import { followUpReport } from "./eval-followups";

const QUESTIONS = 3;

async function reportOf(set: string) {
  const loaded = await loadEvalSet(path.resolve(import.meta.dirname, "../fixtures/eval", set));
  const { mcp, close } = await openSetChat(loaded, undefined, "kb-followups-test-");
  try {
    const r = await followUpReport(
      mcp.url,
      loaded.questions.slice(0, QUESTIONS).map((q) => q.question),
    );
    return { ...r, relevance: r.relevant / r.suggested, answerability: r.answered / r.suggested };
  } finally {
    await close();
  }
}

describe("follow-up suggestion eval", () => {
  it("reports relevance for English and Chinese, English at least Chinese's, above the floors", async () => {
    const en = await reportOf("squad1.1-en-subset");
    const zh = await reportOf("cmrc2018-zh-subset");
    console.log(
      `follow-ups en: relevance ${en.relevance.toFixed(2)}, answered ${en.answerability.toFixed(2)} (${en.suggested}); zh: relevance ${zh.relevance.toFixed(2)}, answered ${zh.answerability.toFixed(2)} (${zh.suggested})`,
    );
    expect(en.suggested).toBeGreaterThanOrEqual(2 * QUESTIONS);
    expect(zh.suggested).toBeGreaterThanOrEqual(QUESTIONS);
    expect(en.relevance).toBeGreaterThanOrEqual(0.9);
    expect(zh.relevance).toBeGreaterThanOrEqual(0.6);
    expect(en.relevance).toBeGreaterThanOrEqual(zh.relevance);
    expect(en.answerability).toBeGreaterThanOrEqual(0.9);
    expect(zh.answerability).toBeGreaterThanOrEqual(0.8);
  }, 240_000);
});
