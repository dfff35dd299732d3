/**
 * Multi-part questions and follow-ups in a real browser (issue #11): the model path against the fake
 * OpenAI-compatible server (its decomposition step shows as separate searches, its citations still open
 * the chunks it read, it sees the conversation so far), and the offline answerer doing the same by rules.
 */

import { ask, cardText, norm, openChip } from "./helpers/chat";
import { fakeRequests, withFakeModelApp } from "./helpers/fake-model";
import { search } from "./helpers/mcp";
import { expect, PORTS, test } from "./helpers/servers";

test.use({ locale: "en-US" });

const LLM_APP = `http://127.0.0.1:${PORTS.llm}`;
const OFFLINE_APP = `http://127.0.0.1:${PORTS.offline}`;
const TWO_PARTS = "What is the sick-leave policy and who approves expenses?";

const { mcp } = withFakeModelApp();

test("model: a two-part question is decomposed first, each part is its own search, and each chip opens the chunk the model read", async ({
  page,
}) => {
  await page.goto(LLM_APP);
  const answer = await ask(page, TWO_PARTS);

  const reqs = await fakeRequests();
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
    search(mcp(), { query: "What is the sick-leave policy?" }),
    search(mcp(), { query: "who approves expenses?" }),
  ]);
  const chips = answer.getByTestId("citation-chip");
  await expect(chips).toHaveCount(2);
  await expect(chips.nth(0)).toHaveAttribute("data-chunk-id", a.results[0].chunk_id);
  await expect(chips.nth(1)).toHaveAttribute("data-chunk-id", b.results[0].chunk_id);
  expect(norm(await openChip(page, chips.nth(0)))).toBe(cardText(a.results[0].text));
  expect(norm(await openChip(page, chips.nth(1)))).toBe(cardText(b.results[0].text));
});

test("model: a follow-up reaches the model with the conversation so far, and the query it writes is shown", async ({ page }) => {
  await page.goto(LLM_APP);
  await ask(page, "How many days of annual leave do employees get?");
  const answer = await ask(page, "and for part-time staff?");
  const reqs = await fakeRequests();
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
