/**
 * The chat with an OpenAI-compatible model: the app at PORTS.llm talks to the fake LLM
 * (e2e/fixtures/fake-openai.ts, real /v1/chat/completions wire format, streaming tool_calls), and its
 * tools come from the app's own /api/mcp. The fake records what it received, so the tests check on the
 * server side that each tool call went through /api/mcp: the results the model read are exactly what an
 * independent MCP client gets from /api/mcp for the same query.
 * The app at PORTS.unreachable points at a closed port, for the model-unreachable error.
 */

import { ask, cardText, norm, openChip, send } from "./helpers/chat";
import { fakeRequests, withFakeModelApp } from "./helpers/fake-model";
import { search } from "./helpers/mcp";
import { CLOSED_MODEL_URL, expect, PORTS, test } from "./helpers/servers";

test.use({ locale: "en-US" });

const APP = `http://127.0.0.1:${PORTS.llm}`;

const { mcp } = withFakeModelApp();

test("the model's search goes through /api/mcp and its [n] opens the chunk it read", async ({ page }) => {
  const question = "How many days of annual leave do employees get?";
  await page.goto(APP);
  await expect(page.getByTestId("offline-note")).toHaveCount(0);
  const answer = await ask(page, question);

  const reqs = await fakeRequests();
  // Request 1: the model gets the MCP tools and calls search_knowledge; request 2 carries the result.
  expect(reqs.length).toBe(2);
  expect(reqs[0].tools).toEqual(expect.arrayContaining(["search_knowledge", "read_document", "list_documents"]));
  expect(reqs[0].authorization).toBe("Bearer test-key");
  expect(reqs[0].reply?.toolCall).toEqual({ name: "search_knowledge", arguments: JSON.stringify({ query: question }) });
  const readByModel = reqs[1].toolResults[0];

  // An independent MCP client asking /api/mcp the same thing gets the same chunks.
  const direct = await search(mcp(), { query: question });
  expect(direct.results.length).toBeGreaterThan(0);
  for (const r of direct.results) expect(norm(readByModel)).toContain(norm(r.text));

  await expect(answer.getByTestId("tool-activity").first()).toContainText(`Searching: ${question}`);
  const chip = answer.getByTestId("citation-chip").first();
  await expect(chip).toHaveAttribute("data-chunk-id", direct.results[0].chunk_id);
  expect(norm(await openChip(page, chip))).toBe(cardText(direct.results[0].text));
});

test("two searches in one turn: numbers do not collide and each chip opens its own chunk", async ({ page }) => {
  const [qa, qb] = ["annual leave days per year", "报销申请单"];
  await page.goto(APP);
  const answer = await ask(page, `twice: ${qa} | ${qb}`);

  const reqs = await fakeRequests();
  expect(reqs.map((r) => r.reply?.toolCall?.arguments ?? "text")).toEqual([
    JSON.stringify({ query: qa }),
    JSON.stringify({ query: qb }),
    "text",
  ]);
  const [first, second] = reqs[2].toolResults;
  const firstRefs = [...first.matchAll(/^\[(\d+)\] /gm)].map((m) => Number(m[1]));
  const secondRefs = [...second.matchAll(/^\[(\d+)\] /gm)].map((m) => Number(m[1]));
  // The tool numbers each search 1..k; the model read the second search under numbers that continue the first's.
  expect(firstRefs[0]).toBe(1);
  expect(secondRefs.filter((n) => !firstRefs.includes(n)).every((n) => n > Math.max(...firstRefs))).toBe(true);

  const [a, b] = await Promise.all([search(mcp(), { query: qa }), search(mcp(), { query: qb })]);
  expect(a.results[0].chunk_id).not.toBe(b.results[0].chunk_id);

  await expect(answer.getByTestId("tool-activity")).toHaveCount(2);
  const chips = answer.getByTestId("citation-chip");
  await expect(chips).toHaveCount(2);
  await expect(chips.nth(0)).toHaveAttribute("data-chunk-id", a.results[0].chunk_id);
  await expect(chips.nth(1)).toHaveAttribute("data-chunk-id", b.results[0].chunk_id);
  expect(await chips.nth(1).getAttribute("data-n")).not.toBe(await chips.nth(0).getAttribute("data-n"));
  expect(norm(await openChip(page, chips.nth(0)))).toBe(cardText(a.results[0].text));
  expect(norm(await openChip(page, chips.nth(1)))).toBe(cardText(b.results[0].text));

  // Sources: both cited chunks first, the rest of what was retrieved collapsed.
  const sources = answer.getByTestId("sources");
  await expect(sources.getByTestId("source-item").nth(0)).toHaveAttribute("data-chunk-id", a.results[0].chunk_id);
  const also = sources.getByTestId("also-retrieved");
  if (await also.count()) await expect(also).not.toHaveAttribute("open", "");
});

test("a marker that points at nothing is removed, never shown as a chip", async ({ page }) => {
  await page.goto(APP);
  const answer = await ask(page, "dangling: annual leave");
  const reqs = await fakeRequests();
  expect(reqs.at(-1)?.reply?.text).toContain("[42]");
  await expect(answer.getByTestId("citation-chip")).toHaveCount(1);
  await expect(answer.getByTestId("answer")).not.toContainText("[42]");
  await expect(answer.locator('[data-testid="citation-chip"][data-n="42"]')).toHaveCount(0);
});

test("a repeated identical search ends the loop and the model answers from what was found", async ({ page }) => {
  await page.goto(APP);
  const answer = await ask(page, "loop: sick leave");
  const reqs = await fakeRequests();
  expect(reqs.length).toBe(3);
  expect(reqs[1].reply?.toolCall).toEqual(reqs[0].reply?.toolCall);
  // The repeat was not run: the model was told so, and its last step could not call tools.
  expect(reqs[2].toolResults[1]).toMatch(/already made/);
  expect(reqs[2].toolChoice).toBe("none");
  await expect(answer.getByTestId("tool-activity").nth(1)).toContainText("Same search again");
  await expect(answer.getByTestId("citation-chip").first()).toBeVisible();
});

test("Stop ends a streaming answer and keeps what arrived", async ({ page }) => {
  await page.goto(APP);
  await send(page, "slow: annual leave");
  const answer = page.getByTestId("assistant-message").last();
  await expect(answer.getByTestId("answer")).toContainText("More detail follows.");
  await page.getByTestId("stop").click();
  await expect(page.getByTestId("send")).toBeVisible();
  await expect(answer.getByTestId("copy-answer")).toBeVisible();
  await expect(answer.getByTestId("answer")).not.toContainText("END.");
  await expect(answer.getByTestId("stopped-marker")).toBeVisible();
  await expect(page.getByTestId("chat-error")).toHaveCount(0);
  // The conversation goes on after a stop.
  await send(page, "annual leave");
  await expect(page.getByTestId("assistant-message")).toHaveCount(2);
  await expect(page.getByTestId("assistant-message").last().getByTestId("citation-chip").first()).toBeVisible();
});

test("an invalid API key is reported as such", async ({ page }) => {
  await page.goto(APP);
  await send(page, "401 what is annual leave?");
  const error = page.getByTestId("chat-error");
  await expect(error).toHaveAttribute("data-code", "invalid_key");
  await expect(error).toContainText("OPENAI_API_KEY");
});

test("an unreachable model gives an error the user can act on, and retry", async ({ page }) => {
  await page.goto(`http://127.0.0.1:${PORTS.unreachable}`);
  await send(page, "How many days of annual leave do employees get?");
  const error = page.getByTestId("chat-error");
  await expect(error).toHaveAttribute("data-code", "model_unreachable");
  await expect(error).toContainText("Can't reach the language model");
  await expect(error).toContainText(CLOSED_MODEL_URL);
  await expect(error).toContainText("OPENAI_BASE_URL");
  await error.getByTestId("retry-error").click();
  await expect(page.getByTestId("chat-error")).toHaveAttribute("data-code", "model_unreachable");
  await expect(page.getByTestId("user-message")).toHaveCount(1);
});

test("a model answer with a table and a code block renders a <table> and highlighted code with a working copy button", async ({
  page,
  context,
}) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.goto(APP);
  const answer = await ask(page, "table: annual leave days per year");
  const table = answer.locator("table");
  await expect(table).toBeVisible();
  await expect(table.locator("th")).toHaveText(["Plan", "Days"]);
  await expect(table.locator("tbody tr")).toHaveCount(2);
  await expect(table.locator("del")).toHaveText("Part-time");
  await expect(answer.getByTestId("answer")).not.toContainText("| ---");
  const code = answer.getByTestId("code-block");
  await expect(code.locator("code.hljs.language-ts")).toBeVisible();
  await expect(code.locator(".hljs-keyword").first()).toHaveText("const");
  await code.getByTestId("copy-code").click();
  await expect(code.getByTestId("copy-code")).toHaveText("Copied");
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("const leaveDays: number = 20;\nconsole.log(leaveDays);\n");
});
