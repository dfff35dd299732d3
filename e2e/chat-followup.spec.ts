/**
 * Multi-part questions and follow-ups in a real browser (issue #11): the model path against the fake
 * OpenAI-compatible server (its decomposition step shows as separate searches, its citations still open
 * the chunks it read, it sees the conversation so far), and the offline answerer doing the same by rules.
 */

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { expect, type Page, test } from "@playwright/test";
import { PORTS } from "../playwright.config";
import type { RecordedRequest } from "./fixtures/fake-openai";
import { connectMcp, mcpUrl, search } from "./helpers/mcp";

test.use({ locale: "en-US" });

const LLM_APP = `http://127.0.0.1:${PORTS.llm}`;
const OFFLINE_APP = `http://127.0.0.1:${PORTS.offline}`;
const FAKE = `http://127.0.0.1:${PORTS.fakeLlm}`;
const TWO_PARTS = "What is the sick-leave policy and who approves expenses?";

let mcp: Client;
test.beforeAll(async () => {
  mcp = await connectMcp(mcpUrl(PORTS.llm));
});
test.afterAll(async () => {
  await mcp?.close();
});
test.beforeEach(async () => {
  await fetch(`${FAKE}/reset`, { method: "POST" });
});

async function ask(page: Page, question: string) {
  const count = await page.getByTestId("assistant-message").count();
  const input = page.getByTestId("chat-input");
  await input.fill(question);
  await input.press("Enter");
  await expect(page.getByTestId("assistant-message")).toHaveCount(count + 1);
  const answer = page.getByTestId("assistant-message").last();
  await expect(answer.getByTestId("copy-answer")).toBeVisible();
  return answer;
}

const norm = (s: string) => s.replace(/\s+/g, " ").trim();
const body = (s: string) => norm(s.replace(/^(?:\s*#{1,6}\s[^\n]*(?:\n|$))+\s*/, ""));

async function chipText(page: Page, chip: ReturnType<Page["getByTestId"]>) {
  await chip.click();
  const popover = page.getByTestId("citation-popover");
  await expect(popover).toBeVisible();
  const text = await popover.getByTestId("chunk-text").innerText();
  await page.keyboard.press("Escape");
  await expect(popover).toBeHidden();
  return text;
}

test("model: a two-part question is decomposed first, each part is its own search, and each chip opens the chunk the model read", async ({
  page,
}) => {
  await page.goto(LLM_APP);
  const answer = await ask(page, TWO_PARTS);

  const reqs: RecordedRequest[] = await (await fetch(`${FAKE}/requests`)).json();
  // The decomposition step: one request without tools, before the tool loop.
  expect(reqs[0].tools).toEqual([]);
  expect(reqs[0].system).toMatch(/^You split questions/);
  // The loop starts with both searches already done.
  expect(reqs[1].toolCalls.map((c) => JSON.parse(c.arguments).query)).toEqual(["What is the sick-leave policy?", "who approves expenses?"]);
  expect(reqs[1].toolResults).toHaveLength(2);

  const activity = answer.getByTestId("tool-activity");
  await expect(activity).toHaveCount(2);
  await expect(activity.nth(0)).toContainText("Searching: What is the sick-leave policy?");
  await expect(activity.nth(1)).toContainText("Searching: who approves expenses?");

  const [a, b] = await Promise.all([
    search(mcp, { query: "What is the sick-leave policy?" }),
    search(mcp, { query: "who approves expenses?" }),
  ]);
  const chips = answer.getByTestId("citation-chip");
  await expect(chips).toHaveCount(2);
  await expect(chips.nth(0)).toHaveAttribute("data-chunk-id", a.results[0].chunk_id);
  await expect(chips.nth(1)).toHaveAttribute("data-chunk-id", b.results[0].chunk_id);
  expect(norm(await chipText(page, chips.nth(0)))).toBe(body(a.results[0].text));
  expect(norm(await chipText(page, chips.nth(1)))).toBe(body(b.results[0].text));
});

test("model: a follow-up reaches the model with the conversation so far, and the query it writes is shown", async ({ page }) => {
  await page.goto(LLM_APP);
  await ask(page, "How many days of annual leave do employees get?");
  const answer = await ask(page, "and for part-time staff?");
  const reqs: RecordedRequest[] = await (await fetch(`${FAKE}/requests`)).json();
  const last = reqs.at(-1)!;
  expect(last.question).toBe("and for part-time staff?");
  expect(last.history[0]).toEqual({ role: "user", text: "How many days of annual leave do employees get?" });
  expect(last.history[1].role).toBe("assistant");
  expect(last.history[1].text).toContain("According to the documents");
  await expect(answer.getByTestId("tool-activity").first()).toContainText("Searching: and for part-time staff?");
});

test("offline: a follow-up is searched with the previous question and answered from the right chunk", async ({ page }) => {
  await page.goto(OFFLINE_APP);
  await ask(page, "How many days of annual leave do full-time employees get?");
  const answer = await ask(page, "and for part-time staff?");
  await expect(answer.getByTestId("tool-activity").first()).toContainText(
    "Searching: and for part-time staff? How many days of annual leave do full-time employees get?",
  );
  await expect(answer.getByTestId("answer")).toContainText("Part-time employees receive a pro-rated amount.");
  await expect(answer.getByTestId("citation-chip").first()).toBeVisible();
});

test("offline: a two-part question shows two searches and answers each part with its own citation", async ({ page }) => {
  await page.goto(OFFLINE_APP);
  const answer = await ask(page, TWO_PARTS);
  const activity = answer.getByTestId("tool-activity");
  await expect(activity).toHaveCount(2);
  await expect(activity.nth(0)).toContainText("Searching: What is the sick-leave policy?");
  await expect(activity.nth(1)).toContainText("Searching: who approves expenses?");
  await expect(answer.getByTestId("answer")).toContainText("approved by your manager");
  expect(await answer.getByTestId("citation-chip").count()).toBeGreaterThanOrEqual(2);
});
