/**
 * FAQ knowledge against the built app on embedded defaults (offline embedder and answerer):
 * - knowledge/product-faq.md is recognised as a FAQ at start-up, and a paraphrased question finds its entry
 *   first through a real MCP client over HTTP; add_faq without a read-write token is refused;
 * - in the browser: add a FAQ in the FAQ tab, ask its question in other words, see the FAQ answer first with
 *   its label; promote a chat answer to a FAQ.
 */

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Locator, Page } from "@playwright/test";
import { audit } from "./helpers/axe";
import { ask } from "./helpers/chat";
import { connectMcp, mcpUrl, resultText, search } from "./helpers/mcp";
import { expect, PORTS, test } from "./helpers/servers";

test.use({ locale: "en-US" });

const APP = `http://127.0.0.1:${PORTS.offline}`;

interface Faq {
  id: string;
  question: string;
  answer: string;
  kb: string;
  source: { label: string; documentId: string | null };
}

async function faqs(q?: string): Promise<Faq[]> {
  const res = await fetch(`${APP}/api/faqs${q ? `?q=${encodeURIComponent(q)}` : ""}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { faqs: Faq[] }).faqs;
}

async function removeAll(match: (f: Faq) => boolean) {
  for (const f of (await faqs()).filter(match)) await fetch(`${APP}/api/faqs/${f.id}`, { method: "DELETE" });
}

let client: Client;
test.beforeAll(async () => {
  client = await connectMcp(mcpUrl(PORTS.offline));
});
test.afterAll(async () => {
  await client?.close();
});

test("a FAQ document is recognised at start-up and a paraphrase finds its entry first over MCP", async () => {
  const extracted = (await faqs()).filter((f) => f.source.label === "document");
  expect(extracted.map((f) => f.question)).toEqual(expect.arrayContaining(["What happens to deleted notes?", "Can I get a refund?"]));

  const { results, text } = await search(client, { query: "what happens with notes that I deleted" });
  expect(results[0]).toMatchObject({ ref: 1, type: "faq", heading: "What happens to deleted notes?" });
  expect(results[0].text).toContain("30 days");
  expect(results.length).toBeLessThanOrEqual(6);
  expect(text).toContain("[1] FAQ › What happens to deleted notes?");

  const faqHits = await client.callTool({ name: "search_faq", arguments: { query: "refund possible?" } });
  expect(resultText(faqHits)).toContain("Can I get a refund?");
});

test("add_faq and delete_faq are neither listed nor run without a read-write token", async () => {
  const names = (await client.listTools()).tools.map((t) => t.name);
  expect(names).toContain("search_faq");
  expect(names).not.toContain("add_faq");
  await expect(client.callTool({ name: "add_faq", arguments: { question: "Is this allowed?", answer: "No." } })).rejects.toThrow(
    /add_faq requires a read-write access token/,
  );
  await expect(client.callTool({ name: "delete_faq", arguments: { id: "0123456789abcdef01234567" } })).rejects.toThrow(
    /delete_faq requires a read-write access token/,
  );
});

test("the FAQ API validates its input", async () => {
  const res = await fetch(`${APP}/api/faqs`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ question: "", answer: "x" }),
  });
  expect(res.status).toBe(400);
  expect(((await res.json()) as { error: { message: string } }).error.message).toContain("question must not be empty");
  expect((await fetch(`${APP}/api/faqs/not-an-id`)).status).toBe(400);
  expect((await fetch(`${APP}/api/faqs/0123456789abcdef01234567`)).status).toBe(404);
});

const QUESTION = "How do I book the quokka meeting room?";
const ANSWER = "Book the quokka room in the Rooms app; it seats eight people.";

test("a FAQ added in the FAQ tab answers its question asked in other words, first and labelled", async ({ page }) => {
  await removeAll((f) => f.question === QUESTION);
  await page.goto("/faq");
  await expect(page.getByTestId("faq-kb-tab-default")).toHaveAttribute("aria-selected", "true");
  const form = page.getByTestId("faq-add-form");
  if (!(await form.isVisible())) await page.getByTestId("faq-add-toggle").click();
  await form.getByTestId("faq-question").fill(QUESTION);
  await form.getByTestId("faq-answer").fill(ANSWER);
  await form.getByTestId("faq-phrasings").fill("reserve the quokka room");
  await form.getByTestId("faq-save").click();
  const item = page.getByTestId("faq-item").filter({ hasText: QUESTION });
  await expect(item).toBeVisible();
  await expect(item).toContainText("Source: added by hand");

  // Search in the tab finds it by other words.
  await page.getByTestId("faq-search").fill("reserving quokka meeting room");
  await expect(page.getByTestId("faq-item").first()).toContainText(QUESTION);

  await page.goto("/");
  const answer = await ask(page, "What's the way to reserve the quokka meeting room?");
  const card = answer.getByTestId("faq-answer");
  await expect(card).toBeVisible();
  await expect(card.getByTestId("faq-answer-label")).toHaveText("FAQ answer");
  await expect(card.getByTestId("faq-answer-question")).toHaveText(QUESTION);
  await expect(card.getByTestId("faq-answer-text")).toHaveText(ANSWER);
  // The FAQ is source [1]; the answer only quotes it, so it is shown once, in the card, before the sources.
  await expect(answer.getByTestId("answer")).toHaveCount(0);
  const order = await answer.evaluate((el) => {
    const c = el.querySelector('[data-testid="faq-answer"]')!;
    const s = el.querySelector('[data-testid="sources"]')!;
    return c.compareDocumentPosition(s) & Node.DOCUMENT_POSITION_FOLLOWING;
  });
  expect(order).toBeTruthy();
  await expect(card.getByTestId("citation-chip")).toHaveText("1");

  // Edit and delete it from the tab.
  await page.goto("/faq");
  const row = page.getByTestId("faq-item").filter({ hasText: QUESTION });
  await row.getByTestId("faq-edit").click();
  await page.getByTestId("faq-edit-form").getByTestId("faq-answer").fill(`${ANSWER} Bring your badge.`);
  await page.getByTestId("faq-edit-form").getByTestId("faq-save").click();
  await expect(page.getByTestId("faq-item").filter({ hasText: QUESTION })).toContainText("Bring your badge.");
  await page.getByTestId("faq-item").filter({ hasText: QUESTION }).getByTestId("faq-delete").click();
  await expect(page.getByTestId("faq-item").filter({ hasText: QUESTION })).toHaveCount(0);
  expect((await faqs()).some((f) => f.question === QUESTION)).toBe(false);
});

test("a chat answer is promoted to a FAQ entry", async ({ page }) => {
  const question = "How many days of annual leave do full-time employees get?";
  await removeAll((f) => f.question === question);
  await page.goto("/");
  const answer = await ask(page, question);
  await answer.getByTestId("promote-faq").click();
  const form = answer.getByTestId("promote-form");
  await expect(form.getByTestId("promote-question")).toHaveValue(question);
  const promoted = await form.getByTestId("promote-answer").inputValue();
  expect(promoted).toMatch(/20 days/);
  expect(promoted).not.toMatch(/\[\d+\]/);
  await form.getByTestId("promote-save").click();
  await expect(answer.getByTestId("promoted")).toBeVisible();

  const saved = (await faqs()).find((f) => f.question === question);
  expect(saved).toMatchObject({ answer: promoted.trim(), source: { label: "chat answer" } });
  // From now on the same question is answered from the FAQ first.
  const { results } = await search(client, { query: "annual leave days for full-time employees" });
  expect(results[0]).toMatchObject({ type: "faq", heading: question });
  await removeAll((f) => f.question === question);
});

test("with a model, generated pairs are grounded, wait for review, and accepting one serves it", async ({ page }) => {
  test.setTimeout(300_000);
  const LLM = `http://127.0.0.1:${PORTS.llm}`;
  const docs = ((await (await fetch(`${LLM}/api/documents`)).json()) as { documents: { id: string; source: string }[] }).documents;
  const doc = docs.find((d) => d.source === "employee-handbook.md")!;
  // Started and watched from the FAQ tab's review view.
  await page.goto(`${LLM}/faq`);
  await page.getByTestId("faq-status-pending").click();
  await page.getByTestId("faq-generate-document").selectOption(doc.id);
  await page.getByTestId("faq-generate-start").click();
  await expect(page.getByTestId("faq-generate-progress")).toHaveAttribute("data-status", "done", { timeout: 240_000 });
  type Progress = { status: string; kept: number; dropped: number; total: number; done: number };
  const progress = ((await (await fetch(`${LLM}/api/faqs/generate?document_id=${doc.id}`)).json()) as { progress: Progress | null })
    .progress;
  expect(progress).toMatchObject({ status: "done" });
  expect(progress!.done).toBe(progress!.total);
  expect(progress!.kept).toBeGreaterThan(0);
  expect(progress!.dropped).toBeGreaterThan(0);

  const pending = ((await (await fetch(`${LLM}/api/faqs?status=pending&kb=default`)).json()) as { faqs: Faq[] }).faqs;
  expect(pending.length).toBeGreaterThan(1);
  expect(pending.length).toBeLessThanOrEqual(progress!.kept);
  expect(pending.every((f) => f.source.label === "model" && f.source.documentId === doc.id)).toBe(true);
  expect(pending.some((f) => /pizza/i.test(f.answer))).toBe(false);

  const items = page.getByTestId("faq-item");
  await expect(items).toHaveCount(pending.length);
  const acceptedId = await items.nth(0).getAttribute("data-faq-id");
  const rejectedId = await items.nth(1).getAttribute("data-faq-id");
  await items.nth(0).getByTestId("faq-accept").click();
  await expect(page.locator(`[data-faq-id="${acceptedId}"]`)).toHaveCount(0);
  await page.locator(`[data-faq-id="${rejectedId}"]`).getByTestId("faq-reject").click();
  await expect(page.locator(`[data-faq-id="${rejectedId}"]`)).toHaveCount(0);
  await page.getByTestId("faq-status-accepted").click();
  await expect(page.locator(`[data-faq-id="${acceptedId}"]`)).toBeVisible();

  expect((await fetch(`${LLM}/api/faqs/${rejectedId}`)).status).toBe(404);
  const accepted = ((await (await fetch(`${LLM}/api/faqs/${acceptedId}`)).json()) as { faq: Faq & { status: string } }).faq;
  expect(accepted.status).toBe("accepted");
  // Served first from now on, through MCP.
  const llmClient = await connectMcp(mcpUrl(PORTS.llm));
  try {
    const { results } = await search(llmClient, { query: accepted.question });
    expect(results[0]).toMatchObject({ type: "faq", heading: accepted.question });
  } finally {
    await llmClient.close();
  }
  const cancel = await fetch(`${LLM}/api/faqs/generate?document_id=${doc.id}`, { method: "DELETE" });
  expect(((await cancel.json()) as { cancelled: boolean }).cancelled).toBe(false);
});

// A FAQ entry taken from a document keeps the citation promise: its number is a chip like an answer's, and its
// source passage (the card's link, the sources row) opens highlighted — beside the chat or as the full page.
for (const c of [
  { locale: "en-US", colorScheme: "light", width: 1280 },
  { locale: "zh-CN", colorScheme: "dark", width: 390 },
] as const) {
  test(`a FAQ answer's [1] is a chip and its source passage opens highlighted (${c.locale}, ${c.colorScheme}, ${c.width} px)`, async ({
    browser,
  }) => {
    const context = await browser.newContext({
      baseURL: APP,
      locale: c.locale,
      colorScheme: c.colorScheme,
      viewport: { width: c.width, height: 844 },
    });
    const page = await context.newPage();
    try {
      await page.goto("/");
      const answer = await ask(page, "How many devices can I use?");
      const card = answer.getByTestId("faq-answer");
      await expect(card).toBeVisible();
      const chip = card.getByTestId("citation-chip");
      await expect(chip).toHaveText("1");
      await chip.click();
      await expect(page.getByTestId("citation-popover")).toContainText("2 devices");
      await audit(page, `faq card ${c.locale} ${c.colorScheme}`);
      await page.keyboard.press("Escape");
      await card.getByTestId("faq-answer-source").click();
      // The highlighted blocks: the entry's question (its heading) and its answer.
      const highlighted = (within: Page | Locator) =>
        within.locator('[data-passage="true"], [data-highlighted="true"]').filter({ hasText: "2 devices" }).first();
      if (c.width >= 1024) {
        const panel = page.getByTestId("source-panel");
        await expect(highlighted(panel)).toBeVisible();
        await panel.getByTestId("source-panel-close").click();
        // The sources row opens the same passage.
        await answer.getByTestId("source-link").first().click();
        await expect(highlighted(panel)).toBeVisible();
      } else {
        await expect(page).toHaveURL(/\/documents\/[^?]+\?chunk=/);
        await expect(highlighted(page)).toBeInViewport();
      }
    } finally {
      await context.close();
    }
  });
}
