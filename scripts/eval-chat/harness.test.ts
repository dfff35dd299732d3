/**
 * Answer-quality regression of the offline answerer on a vendored subset, through runChat and the app's
 * MCP endpoint (see eval-chat.ts). Thresholds sit a little below the values measured when this test was
 * written; `npm run eval -- --chat <set>` gives the full numbers.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EvalSet, ingestSet, loadEvalSet } from "@/lib/retrieve/eval-harness";
import type { Store } from "@/lib/store";
import { openTempStore, type TempStore } from "@/lib/store/temp-store";
import { answerContained, evalChat, serveMcp, shortAnswerQuestions } from "./harness";
import { rankingCeiling } from "./ranking";

const evalDir = (name: string) => path.resolve(import.meta.dirname, "../../fixtures/eval", name);

let temp: TempStore;
let store: Store;
let mcp: Awaited<ReturnType<typeof serveMcp>>;
let squad: EvalSet;

beforeAll(async () => {
  squad = await loadEvalSet(evalDir("squad1.1-en-subset"));
  temp = await openTempStore("eval-chat-test-", 2048);
  store = temp.store;
  await ingestSet(store, squad, squad.docs);
  mcp = await serveMcp(store);
}, 240_000);

afterAll(async () => {
  await mcp?.close();
  await temp?.close();
});

describe("offline answer quality (vendored SQuAD subset)", () => {
  it("contains the answer, cites, and rarely refuses answerable questions", async () => {
    const questions = shortAnswerQuestions(squad.questions).slice(0, 60);
    const s = await evalChat(mcp.url, questions);
    console.log(
      `squad subset: ${s.questions} questions, contained ${s.contained} (${s.first} in the first sentence), median sentences ${s.medianSentences}, cited ${s.cited}, refused ${s.refused}`,
    );
    expect(s.questions).toBe(60);
    // Measured: contained 54 (51 in the first sentence), median 1 sentence, cited 59, refused 1; the
    // ranking bound below: best sentence 52, best 2 55, best 3 57, in the retrieved passages 59.
    expect(s.contained / s.questions).toBeGreaterThanOrEqual(0.75);
    // The answer first (issue #27): where the answer is in the reply, it is in its first sentence.
    expect(s.first / s.contained).toBeGreaterThanOrEqual(0.9);
    expect(s.medianSentences).toBeLessThanOrEqual(2);
    expect(s.cited / s.questions).toBeGreaterThanOrEqual(0.9);
    expect(s.refused / s.questions).toBeLessThanOrEqual(0.08);
    // Bounded quotes, not whole chunks.
    for (const item of s.items) expect(item.text.length).toBeLessThan(1200);
    // The ranking bound reads what the chat's answerer read: its first sentences come from the best sentence.
    const r = await rankingCeiling(store, questions);
    console.log(`ranking: best ${r.best}, best 2 ${r.top2}, best 3 ${r.top3}, retrieved ${r.retrieved}`);
    expect(r.questions).toBe(60);
    expect(r.best).toBeGreaterThanOrEqual(s.first);
    expect(r.best).toBeLessThanOrEqual(r.top2);
    expect(r.top2).toBeLessThanOrEqual(r.top3);
    expect(r.top3).toBeLessThanOrEqual(r.retrieved);
  }, 300_000);

  it("refuses questions about another subject (COVID-QA questions against Wikipedia articles)", async () => {
    const covid = await loadEvalSet(evalDir("covidqa-en-subset"));
    const s = await evalChat(mcp.url, covid.questions.slice(0, 40), { answerable: false });
    console.log(`unanswerable: ${s.questions} questions, refused ${s.refused}`);
    // Measured: refused 35/40 (the full-set figure in the other direction, SQuAD questions against
    // COVID-QA papers, is 90.4 %).
    expect(s.refused / s.questions).toBeGreaterThanOrEqual(0.8);
  }, 300_000);
});

describe("answerContained", () => {
  it("folds case, spacing and markers, and needs the whole reference", () => {
    expect(answerContained("It was William E. [1] Simon.", ["william e. simon"])).toBe(true);
    expect(answerContained("It was William Simon.", ["William E. Simon"])).toBe(false);
    expect(answerContained("Named  William E.  Simon [1].", ["William E. Simon"])).toBe(true);
    expect(answerContained("每年 10 天 [2]", ["每年 10 天"])).toBe(true);
    expect(answerContained("The knowledge base does not contain an answer.", ["Simon"])).toBe(false);
  });
});
