/**
 * The chat as people expect it (#28): a citation opens its document beside the chat (wide screens) or on its
 * own page whose Back returns to the same conversation and turn (phones); the language switch turns every
 * page, dialog and tab title Chinese and is remembered; the keyboard shortcuts and their list.
 * Real browser against the built app (offline answerer).
 */
import type { Page } from "@playwright/test";
import { T as ACCOUNT } from "../components/account/messages";
import { T as CHAT } from "../components/chat/strings";
import { T as CONNECT } from "../components/connect/messages";
import { T as DOCUMENTS } from "../components/documents/messages";
import { T as FAQ } from "../components/faq/messages";
import { T as KBS } from "../components/kbs/messages";
import { ask } from "./helpers/chat";
import { expect, test } from "./helpers/servers";

test.use({ locale: "en-US" });

const QUESTION = "How many days of annual leave do full-time employees get?";

test("on a wide screen a citation opens its document beside the chat, at the passage, and the chat goes on", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto("/");
  const answer = await ask(page, QUESTION);
  await answer.getByTestId("citation-chip").first().click();
  await page.getByTestId("citation-popover").getByTestId("open-in-document").click();
  const panel = page.getByTestId("source-panel");
  await expect(panel).toBeVisible();
  await expect(page.getByTestId("citation-popover")).toHaveCount(0);
  await expect(page).toHaveURL(/\/(\?c=[^/]*)?$/);
  await expect(panel.getByTestId("document-title")).toBeVisible();
  const passage = panel.locator('[data-passage="true"], [data-highlighted="true"]').first();
  await expect(passage).toBeInViewport();
  // The header stays in view when the document scrolls.
  await panel.locator(".overflow-y-auto").evaluate((el) => el.scrollTo(0, el.scrollHeight));
  await expect(panel.getByTestId("document-title")).toBeInViewport();

  // The chat is still there and goes on with the panel open.
  await expect(page.getByTestId("user-message")).toHaveText([QUESTION]);
  await ask(page, "What is the password policy?");
  await expect(page.getByTestId("assistant-message")).toHaveCount(2);
  await expect(panel).toBeVisible();
  // The view followed the answer down to its sources and its Copy/Regenerate/feedback row.
  await expect(page.getByTestId("assistant-message").last().getByTestId("answer-actions")).toBeInViewport();
  // A row of the sources list opens beside the chat too.
  await page.getByTestId("assistant-message").first().getByTestId("source-link").first().click();
  await expect(panel.getByTestId("document-title")).toBeVisible();
  await expect(page.getByTestId("user-message")).toHaveCount(2);
  await panel.getByTestId("source-panel-close").click();
  await expect(panel).toHaveCount(0);
});

test("on a phone the full document page's Back lands on the same conversation and turn", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/");
  const first = await ask(page, QUESTION);
  await ask(page, "What is the password policy?");
  await expect(page).toHaveURL(/[?&]c=/);
  const conversation = new URL(page.url()).searchParams.get("c");
  const turn = await first.getAttribute("data-message-id");
  await first.getByTestId("citation-chip").first().click();
  await page.getByTestId("citation-popover").getByTestId("open-in-document").click();
  await expect(page).toHaveURL(/\/documents\//);
  await expect(page.locator('[data-passage="true"], [data-highlighted="true"]').first()).toBeInViewport();
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  await expect(page.getByTestId("document-title")).toBeInViewport();
  await page.getByTestId("back-to-chat").click();
  await expect(page).toHaveURL(new RegExp(`[?&]c=${conversation}`));
  await expect(page.getByTestId("assistant-message")).toHaveCount(2);
  await expect(page.locator(`[data-message-id="${turn}"]`)).toBeInViewport();
});

test("keyboard shortcuts: ? lists them, / focuses the question box, Ctrl+K searches the history, Ctrl+Shift+O starts a new chat", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto("/");
  await ask(page, QUESTION);
  await page.locator("body").click({ position: { x: 5, y: 400 } });
  await page.keyboard.press("?");
  await expect(page.getByTestId("shortcuts-dialog")).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("shortcuts-dialog")).toHaveCount(0);
  await page.keyboard.press("/");
  await expect(page.getByTestId("chat-input")).toBeFocused();
  await page.keyboard.press("Control+k");
  await expect(page.locator('[data-testid="conversation-search"]:visible')).toBeFocused();
  await page.keyboard.press("Control+Shift+O");
  await expect(page.getByTestId("user-message")).toHaveCount(0);
  await expect(page.getByTestId("empty-state")).toBeVisible();
});

/** English UI strings that have a different Chinese text (the ones a Chinese page must not show). */
function englishStrings(): string[] {
  const all = [ACCOUNT, CHAT, CONNECT, DOCUMENTS, FAQ, KBS].flatMap((d) =>
    Object.entries(d.en)
      .filter(([k, v]) => v !== (d.zh as Record<string, string>)[k])
      // Around a placeholder only phrases count: a lone word there ("(default)") may be a name from the data.
      .flatMap(([, v]) => (/\{\w+\}/.test(v) ? v.split(/\{\w+\}/).filter((part) => part.trim().includes(" ")) : [v])),
  );
  return [...new Set(all.map((s) => s.replace(/^[\s·:,.(]+|[\s·:,.)…]+$/g, "")).filter((s) => /[a-z]{3}/i.test(s)))];
}

/** The texts people read as UI: controls, headings, labels, placeholders, titles, and the tab title. */
async function uiTexts(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out = [document.title];
    const visible = (el: Element) => (el as HTMLElement).offsetParent !== null || el.tagName === "OPTION";
    for (const el of document.querySelectorAll("button, a, label, h1, h2, h3, th, option, summary, p, dt, [role=status]")) {
      // Document content (titles, text, sources) is the documents' own language.
      if (
        el.closest(
          "[data-testid=documents-table] td, section, [data-testid=user-message], [data-testid=answer], [data-testid=chunk-text], dd",
        )
      )
        continue;
      if (visible(el)) out.push((el as HTMLElement).innerText);
    }
    for (const el of document.querySelectorAll("[placeholder], [aria-label], [title]"))
      for (const a of ["placeholder", "aria-label", "title"]) if (el.getAttribute(a)) out.push(el.getAttribute(a)!);
    return out;
  });
}

async function expectNoEnglish(page: Page, where: string, english: string[]) {
  const texts = await uiTexts(page);
  const found = english.filter((e) => texts.some((t) => (e.includes(" ") ? t.includes(e) : t.trim() === e)));
  expect(found, `${where}: English UI strings ${JSON.stringify(found)}`).toEqual([]);
}

test("the language switch turns every page, dialog and tab title Chinese, and is remembered", async ({ page, request }) => {
  // Knowledge-base names are data ("default"), not UI text.
  const { kbs } = await (await request.get("/api/kbs")).json();
  const names = new Set((kbs as { name: string }[]).map((k) => k.name));
  const english = englishStrings().filter((e) => !names.has(e));
  await page.goto("/");
  // A pick made before the page is hydrated changes only the native select: pick again until the page follows it.
  await expect(async () => {
    await page.getByTestId("language-switch").selectOption("en");
    await page.getByTestId("language-switch").selectOption("zh");
    await expect(page.locator("html")).toHaveAttribute("lang", "zh-CN", { timeout: 2_000 });
  }).toPass({ timeout: 60_000 });
  await page.reload();
  await expect(page.getByTestId("example-question").first()).toBeVisible();
  await expect(page).toHaveTitle("知识库问答");
  await expectNoEnglish(page, "empty chat", english);
  const answer = await ask(page, "报销时员工要先填写什么？");
  await expectNoEnglish(page, "answered chat", english);
  await answer.getByTestId("citation-chip").first().click();
  await expectNoEnglish(page, "citation popover", english);
  await page.keyboard.press("Escape");
  await page.getByTestId("connect-open").click();
  await expect(page.getByRole("dialog")).toBeVisible();
  await expectNoEnglish(page, "Connect dialog", english);
  await page.keyboard.press("Escape");

  const { documents } = await (await request.get("/api/documents")).json();
  for (const [path, title] of [
    ["/documents", "文档 · 知识库问答"],
    [`/documents/${documents[0].id}`, "文档 · 知识库问答"],
    ["/kbs", "知识库 · 知识库问答"],
    ["/faq", "常见问题 · 知识库问答"],
  ]) {
    await page.goto(path);
    await expect(page).toHaveTitle(title);
    await page.waitForLoadState("networkidle");
    await expectNoEnglish(page, path, english);
  }
  // Back to English, remembered too.
  await page.getByTestId("language-switch").first().selectOption("en");
  await expect(page).toHaveTitle("FAQ · Knowledge Chat");
});

test("the theme switch overrides the system theme and is remembered", async ({ page }) => {
  await page.emulateMedia({ colorScheme: "light" });
  await page.goto("/");
  await expect(page.locator("html")).not.toHaveClass(/dark/);
  await page.getByTestId("theme-switch").selectOption("dark");
  await expect(page.locator("html")).toHaveClass(/dark/);
  await page.reload();
  await expect(page.locator("html")).toHaveClass(/dark/);
  expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).not.toBe("rgb(255, 255, 255)");
  await page.getByTestId("theme-switch").selectOption("system");
  await expect(page.locator("html")).not.toHaveClass(/dark/);
});

test.describe("Chinese on a phone", () => {
  test.use({ locale: "zh-CN", viewport: { width: 390, height: 844 } });

  test("the /documents heading stays on one line and says files can be dropped anywhere", async ({ page }) => {
    await page.goto("/documents");
    const h1 = page.locator("h1");
    await expect(h1).toHaveText("文档库");
    const lineHeight = await h1.evaluate((el) => Number.parseFloat(getComputedStyle(el).lineHeight));
    expect((await h1.boundingBox())!.height).toBeLessThan(lineHeight * 1.5);
    await expect(page.getByTestId("drop-anywhere")).toContainText("拖放到本页任意位置");
    await expect(page).toHaveTitle("文档 · 知识库问答");
  });
});
