/**
 * Conversations kept on the server: reload restores the open conversation and its knowledge-base
 * filter; the sidebar reopens, renames, deletes and searches; Regenerate on any answer, edit-and-resend;
 * thumbs with a note stored and visible through the API. Real browser against the built app (offline).
 */
import type { Page } from "@playwright/test";
import { ask } from "./helpers/chat";
import { expect, test } from "./helpers/servers";

test.use({ locale: "en-US" });
test.describe.configure({ mode: "serial" });

const RUN = Date.now().toString(36);

/** The open conversation's id, once the first turn is saved (it is then in the address). */
async function conversationIdOf(page: Page): Promise<string> {
  await expect(page).toHaveURL(/[?&]c=/);
  return new URL(page.url()).searchParams.get("c")!;
}

async function saved(
  page: Page,
  id: string,
  check: (c: { messages: unknown[]; feedback: Record<string, { rating: string; note?: string }>; title: string; kbs: string[] }) => boolean,
) {
  await expect
    .poll(async () => {
      const res = await page.request.get(`/api/conversations/${id}`);
      return res.ok() && check((await res.json()).conversation);
    })
    .toBe(true);
}

test("a reload keeps the conversation and its knowledge-base filter", async ({ page }) => {
  const kb = `conv-${RUN}`;
  expect((await page.request.post("/api/kbs", { data: { name: kb, title: `Conv ${RUN}` } })).ok()).toBe(true);
  try {
    await page.goto("/");
    await page.getByTestId("kb-filter").click();
    await page.locator(`[data-testid="kb-filter-option"][value="${kb}"]`).check();
    await page.keyboard.press("Escape");
    await ask(page, "How many days of annual leave do full-time employees get?");
    await expect(page).toHaveURL(/\?c=/);
    const id = await conversationIdOf(page);
    await saved(page, id, (c) => c.messages.length === 2 && c.kbs.includes(kb));

    await page.reload();
    await expect(page.getByTestId("user-message")).toHaveText("How many days of annual leave do full-time employees get?");
    await expect(page.getByTestId("assistant-message")).toHaveCount(1);
    await expect(page.getByTestId("kb-filter")).toContainText(`Conv ${RUN}`);
    await expect(page.locator(`[data-testid="conversation-item"][data-id="${id}"] [data-testid="conversation-open"]`)).toHaveAttribute(
      "aria-current",
      "page",
    );
  } finally {
    await page.request.delete(`/api/kbs/${kb}`);
  }
});

test("regenerate any answer, edit and resend a question, rate an answer with a note", async ({ page }) => {
  await page.goto("/");
  await ask(page, "How many days of annual leave do full-time employees get?");
  await ask(page, "What is the password policy?");
  const id = await conversationIdOf(page);
  await saved(page, id, (c) => c.messages.length === 4);
  const answers = page.getByTestId("assistant-message");

  // Regenerate the FIRST answer: a second version of it, with other sentences (offline: the next-best ones).
  const firstText = await answers.first().getByTestId("answer").innerText();
  await answers.first().getByTestId("retry-answer").click();
  await expect(answers).toHaveCount(1);
  await expect(answers.first().getByTestId("copy-answer")).toBeVisible();
  await expect(answers.first().getByTestId("version-label")).toHaveText("2/2");
  expect(await answers.first().getByTestId("answer").innerText()).not.toBe(firstText);
  // Nothing is deleted: both versions and the later turn are stored.
  await saved(page, id, (c) => c.messages.length === 5);

  // After a reload, version 1 brings the later turn back, and stays chosen after another reload.
  await page.reload();
  await expect(answers.first().getByTestId("version-label")).toHaveText("2/2");
  await answers.first().getByTestId("version-prev").click();
  await expect(answers).toHaveCount(2);
  await expect(page.getByTestId("user-message")).toHaveText([
    "How many days of annual leave do full-time employees get?",
    "What is the password policy?",
  ]);
  await expect(answers.first().getByTestId("version-label")).toHaveText("1/2");
  await expect(answers.first().getByTestId("answer")).toHaveText(firstText);
  const laterAnswer = await answers.nth(1).getAttribute("data-message-id");
  await saved(page, id, (c) => (c.messages.at(-1) as { id: string }).id === laterAnswer);
  await page.reload();
  await expect(answers).toHaveCount(2);
  await expect(answers.first().getByTestId("version-label")).toHaveText("1/2");

  // Edit the first question: a new branch; the original question and its turns are one click away.
  await page.getByTestId("edit-question").first().click();
  await page.getByTestId("edit-input").fill("What is the password policy?");
  await page.getByTestId("edit-send").click();
  await expect(page.getByTestId("user-message")).toHaveText(["What is the password policy?"]);
  await expect(answers).toHaveCount(1);
  await expect(answers.first().getByTestId("copy-answer")).toBeVisible();
  await saved(page, id, (c) => c.messages.length === 7 && JSON.stringify(c.messages).includes("password policy"));
  const question = page.locator("div:has(> [data-testid=user-message])").first();
  await expect(question.getByTestId("version-label")).toHaveText("2/2");
  await question.getByTestId("version-prev").click();
  await expect(page.getByTestId("user-message")).toHaveText([
    "How many days of annual leave do full-time employees get?",
    "What is the password policy?",
  ]);
  await question.getByTestId("version-next").click();
  await expect(page.getByTestId("user-message")).toHaveText(["What is the password policy?"]);
  await expect(answers).toHaveCount(1);

  // Thumbs down with a note: stored with the conversation, visible through the API.
  const answer = page.getByTestId("assistant-message").first();
  const answerId = (await answer.getAttribute("data-message-id"))!;
  await answer.getByTestId("thumbs-down").click();
  await expect(answer.getByTestId("thumbs-down")).toHaveAttribute("aria-pressed", "true");
  await answer.getByTestId("feedback-note").fill("Missing the rotation interval");
  await answer.getByTestId("feedback-send").click();
  await expect(answer.getByTestId("feedback-saved")).toBeVisible();
  await saved(page, id, (c) => c.feedback[answerId]?.rating === "down" && c.feedback[answerId]?.note === "Missing the rotation interval");
  await page.reload();
  await expect(page.getByTestId("assistant-message").first().getByTestId("thumbs-down")).toHaveAttribute("aria-pressed", "true");
});

test("the sidebar reopens, renames, searches and deletes conversations", async ({ page }) => {
  await page.goto("/");
  await ask(page, `Tell me about annual leave ${RUN}`);
  const first = await conversationIdOf(page);
  await saved(page, first, (c) => c.messages.length === 2);
  await page.getByTestId("new-chat").click();
  await expect(page).not.toHaveURL(/\?c=/);
  await ask(page, "What is the password policy?");
  const second = await conversationIdOf(page);
  expect(second).not.toBe(first);
  await saved(page, second, (c) => c.messages.length === 2);

  const item = (id: string) => page.locator(`[data-testid="conversation-item"][data-id="${id}"]`);
  // Reopen the first.
  await item(first).getByTestId("conversation-open").click();
  await expect(page.getByTestId("user-message")).toContainText(RUN);
  await expect(page).toHaveURL(new RegExp(`c=${first}`));

  // Rename it.
  await item(first).getByTestId("conversation-rename").click();
  await page.getByTestId("conversation-title-input").fill(`Leave questions ${RUN}`);
  await page.getByTestId("conversation-rename-save").click();
  await expect(item(first).getByTestId("conversation-title")).toHaveText(`Leave questions ${RUN}`);
  await saved(page, first, (c) => c.title === `Leave questions ${RUN}`);

  // Search finds it by its title and by what was said in it.
  const search = page.getByTestId("conversation-search");
  await search.fill(`questions ${RUN}`);
  await expect(page.getByTestId("conversation-item")).toHaveCount(1);
  await expect(item(first)).toBeVisible();
  await search.fill(`annual leave ${RUN}`);
  await expect(page.getByTestId("conversation-item")).toHaveCount(1);
  await search.fill(`no such words ${RUN}`);
  await expect(page.getByTestId("conversation-item")).toHaveCount(0);
  await search.fill("");

  // Delete the open one: gone from the list and the server, and the chat starts over.
  await item(first).getByTestId("conversation-delete").click();
  await item(first).getByTestId("conversation-delete-confirm").click();
  await expect(item(first)).toHaveCount(0);
  await expect(page.getByTestId("user-message")).toHaveCount(0);
  expect((await page.request.get(`/api/conversations/${first}`)).status()).toBe(404);
  await expect(item(second)).toBeVisible();
});

test("the conversations API validates input", async ({ request }) => {
  expect((await request.post("/api/conversations", { data: { messages: [{ role: "user" }] } })).status()).toBe(400);
  expect((await request.get("/api/conversations/..%2Fx")).status()).toBe(404);
  const created = await request.post("/api/conversations", { data: { title: "api", messages: [] } });
  expect(created.status()).toBe(201);
  const { conversation } = await created.json();
  expect(
    (await request.post(`/api/conversations/${conversation.id}/feedback`, { data: { messageId: "nope", rating: "up" } })).status(),
  ).toBe(404);
  expect((await request.patch(`/api/conversations/${conversation.id}`, { data: {} })).status()).toBe(400);
  expect((await request.delete(`/api/conversations/${conversation.id}`)).status()).toBe(200);
});
