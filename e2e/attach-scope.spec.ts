/**
 * Sources picked per question (issue #53), in English and Chinese: a file attached to a question is added to the
 * library through the documents' upload route (a broken one gets the upload error and the typed question stays),
 * the question is scoped to it and its answer cites nothing else; after a reload the question still shows its
 * attachment, the sources picked for the conversation are restored, an edit re-asks with the question's own
 * scope, and a document deleted from the library drops out of the saved sources with a note. A reader (an app
 * of its own that asks everyone to sign in) sees the paperclip disabled with the reason. axe on each state.
 */
import type { Locator, Page } from "@playwright/test";
import { audit } from "./helpers/axe";
import { ask } from "./helpers/chat";
import { expect, PORT_BASE, test } from "./helpers/servers";
import { startTeamServer, type TeamServer } from "./helpers/team-server";

const CASES = {
  en: {
    locale: "en-US",
    fact: (word: string) =>
      `# Zephyr project memo\n\nThe launch code word of the Zephyr project is ${word}. Only the Zephyr team knows it.\n`,
    question: "What is the launch code word of the Zephyr project?",
    one: "1 document",
    all: "All documents",
    dropped: "no longer in the library",
  },
  zh: {
    locale: "zh-CN",
    fact: (word: string) => `# 天琴计划备忘录\n\n天琴计划的发布暗号是 ${word}。只有天琴团队知道这个暗号。\n`,
    question: "天琴计划的发布暗号是什么？",
    one: "1 篇文档",
    all: "全部文档",
    dropped: "已不在资料库中",
  },
} as const;

/** Every passage the answer cites or lists comes from document `id`. */
async function expectOnlyFrom(answer: Locator, id: string) {
  const chips = answer.getByTestId("citation-chip");
  await expect(chips.first()).toBeVisible();
  const cited = [
    ...(await chips.evaluateAll((els) => els.map((e) => e.getAttribute("data-chunk-id")))),
    ...(await answer.getByTestId("source-item").evaluateAll((els) => els.map((e) => e.getAttribute("data-chunk-id")))),
  ];
  expect(cited.length).toBeGreaterThan(0);
  for (const c of cited) expect(c?.startsWith(`${id}:`), `${c} is not from ${id}`).toBe(true);
}

async function savedDocuments(page: Page): Promise<string[]> {
  const id = new URL(page.url()).searchParams.get("c");
  if (!id) return ["(not saved yet)"];
  const res = await page.request.get(`/api/conversations/${id}`);
  return res.ok() ? ((await res.json()) as { conversation: { documents: string[] } }).conversation.documents : ["(not saved yet)"];
}

test.describe.configure({ mode: "serial", timeout: 300_000 });

for (const lang of ["en", "zh"] as const) {
  const c = CASES[lang];
  test.describe(c.locale, () => {
    test.use({ locale: c.locale });

    test(`attach a file to a question (${lang}): scoped answer, restored after a reload, dropped once deleted`, async ({ page }) => {
      const word = `QUASAR${Date.now().toString(36).toUpperCase()}`;
      const name = `zephyr-${lang}-${Date.now().toString(36)}.md`;
      await page.goto("/");
      const input = page.getByTestId("chat-input");
      await input.fill(c.question);

      // A broken file: the upload route's error on its chip, nothing sent, the typed question kept.
      await page
        .getByTestId("attach-file-input")
        .setInputFiles({ name: "broken.pdf", mimeType: "application/pdf", buffer: Buffer.from("not a pdf") });
      const broken = page.getByTestId("attachment-chip").filter({ hasText: "broken.pdf" });
      await expect(broken).toHaveAttribute("data-state", "failed", { timeout: 60_000 });
      await expect(broken.getByTestId("attachment-status")).toContainText(lang === "zh" ? "失败" : "Failed");
      await expect(page.getByTestId("send")).toBeDisabled();
      await expect(input).toHaveValue(c.question);
      await broken.getByTestId("attachment-remove").click();
      await expect(page.getByTestId("attachment-chip")).toHaveCount(0);

      // A good file: uploaded into the library, its chip shows the ingest status until it is in.
      await page.getByTestId("attach-file-input").setInputFiles({ name, mimeType: "text/markdown", buffer: Buffer.from(c.fact(word)) });
      const chip = page.getByTestId("attachment-chip");
      await expect(chip).toContainText(name);
      await expect(chip).toHaveAttribute("data-state", "done", { timeout: 120_000 });
      await expect(input).toHaveValue(c.question);
      await audit(page, `composer with an attachment (${lang})`, '[data-testid="composer"]');

      const answer = await ask(page, c.question);
      await expect(answer).toContainText(word);
      const attached = page.getByTestId("message-attachment");
      await expect(attached).toContainText(name);
      const docId = (await attached.getAttribute("data-id"))!;
      expect(docId).toBeTruthy();
      await expectOnlyFrom(answer, docId);
      await expect(page.getByTestId("attachment-chip")).toHaveCount(0);
      // Only that question was scoped: the conversation's sources are still every document.
      await expect(page.getByTestId("document-scope-label")).toHaveText(c.all);

      // Pick the attached document as the conversation's source: saved with it.
      await page.getByTestId("document-scope").click();
      await page.locator(`[data-testid="document-scope-item"][data-id="${docId}"]`).check();
      await expect(page.getByTestId("document-scope-label")).toHaveText(c.one);
      await audit(page, `scope picker (${lang})`, '[data-testid="document-scope-panel"]');
      await page.getByTestId("document-scope").click();
      await expect.poll(() => savedDocuments(page), { timeout: 30_000 }).toEqual([docId]);

      // Reload: the question's attachment chip and the saved sources are back.
      await page.reload();
      await expect(page.getByTestId("message-attachment")).toContainText(name);
      await expect(page.getByTestId("document-scope-label")).toHaveText(c.one);
      await page.getByTestId("document-scope").click();
      await expect(page.locator(`[data-testid="document-scope-item"][data-id="${docId}"]`)).toBeChecked();
      await page.getByTestId("document-scope-clear").click();
      await expect(page.getByTestId("document-scope-label")).toHaveText(c.all);
      await page.getByTestId("document-scope").click();

      // An edit re-asks with the question's own scope (the attached document), not today's pick (all documents).
      await page.getByTestId("edit-question").click();
      await page.getByTestId("edit-send").click();
      await expect(page.getByTestId("assistant-message")).toHaveCount(1);
      const edited = page.getByTestId("assistant-message").first();
      await expect(edited.getByTestId("copy-answer")).toBeVisible();
      await expect(page.getByTestId("version-switch").first()).toBeVisible();
      await expect(edited).toContainText(word);
      await expectOnlyFrom(edited, docId);
      await expect(page.getByTestId("message-attachment")).toContainText(name);

      // Picked again, then deleted from the library: it drops out of the saved sources, with a note.
      await page.getByTestId("document-scope").click();
      await page.locator(`[data-testid="document-scope-item"][data-id="${docId}"]`).check();
      await page.getByTestId("document-scope").click();
      await expect.poll(() => savedDocuments(page), { timeout: 30_000 }).toEqual([docId]);
      expect((await page.request.delete(`/api/documents/${docId}`)).ok()).toBe(true);
      await page.reload();
      await expect(page.getByTestId("chat-notice")).toContainText(c.dropped);
      await expect(page.getByTestId("document-scope-label")).toHaveText(c.all);
      await expect.poll(() => savedDocuments(page), { timeout: 30_000 }).toEqual([]);
      // The question's chip stays (it says what was asked with), and a new question is answered as usual.
      await expect(page.getByTestId("message-attachment")).toContainText(name);
    });
  });
}

test("a file dropped on the question box is attached to the question, not only added to the library", async ({ page }) => {
  await page.goto("/");
  const name = `dropped-${Date.now().toString(36)}.txt`;
  await expect(page.getByTestId("attach-file")).not.toHaveAttribute("aria-disabled", "true");
  const files = await page.evaluateHandle((n) => {
    const dt = new DataTransfer();
    // Its own text too: the same bytes again would be the document already there ("unchanged").
    dt.items.add(new File([`The dropped note ${n} says the orchard opens at dawn.`], n, { type: "text/plain" }));
    return dt;
  }, name);
  const composer = page.getByTestId("composer");
  for (const type of ["dragenter", "dragover", "drop"]) await composer.dispatchEvent(type, { dataTransfer: files });
  const chip = page.getByTestId("attachment-chip");
  await expect(chip).toContainText(name);
  await expect(chip).toHaveAttribute("data-state", "done", { timeout: 120_000 });
  // The page's drop zone left it to the question box: no second upload in the tray.
  await expect(page.getByTestId("upload-tray")).toHaveCount(0);
  await expect(page.getByTestId("drop-overlay")).toHaveCount(0);
  await chip.getByTestId("attachment-remove").click();
  await expect(chip).toHaveCount(0);
  // Removing the chip leaves the file in the library; this test removes it (and any left by an earlier failed run).
  const listed = async () =>
    ((await (await page.request.get("/api/documents")).json()) as { documents: { id: string; source: string }[] }).documents;
  await expect.poll(async () => (await listed()).some((d) => d.source === name), { timeout: 30_000 }).toBe(true);
  for (const d of await listed()) {
    if (/^(dropped|zephyr)-/.test(d.source)) expect((await page.request.delete(`/api/documents/${d.id}`)).ok()).toBe(true);
  }
});

test.describe("a reader", () => {
  let team: TeamServer;

  test.beforeAll(async () => {
    // Its own server starts here: startOwnServer waits up to two minutes for it, longer than a hook's default.
    test.setTimeout(300_000);
    team = await startTeamServer(PORT_BASE + 74, "attach");
    for (const who of ["rita", "ren"]) await team.inviteReader(who, ["default"]);
  });

  test.afterAll(async () => {
    await team?.server.stop();
  });

  for (const [who, locale, reason] of [
    ["rita", "en-US", "You may read this library but not add files to it"],
    ["ren", "zh-CN", "你可以阅读此资料库，但不能向其中添加文件"],
  ] as const) {
    test(`sees the paperclip disabled with the reason (${locale})`, async ({ browser }) => {
      const page = await team.join(browser, who, locale);
      const attach = page.getByTestId("attach-file");
      await expect(attach).toBeVisible();
      await expect(attach).toHaveAttribute("aria-disabled", "true");
      await expect(attach).toHaveAttribute("title", new RegExp(reason));
      await page.getByTestId("chat-input").fill("Leave?");
      // Disabled but focusable: activating it says why instead of opening the file picker.
      await attach.focus();
      await page.keyboard.press("Enter");
      await expect(page.getByTestId("attach-note")).toContainText(reason);
      // Nothing was offered to the file picker, and the question is still there.
      await expect(page.getByTestId("attachment-chip")).toHaveCount(0);
      await expect(page.getByTestId("chat-input")).toHaveValue("Leave?");
      await audit(page, `composer of a reader (${locale})`, '[data-testid="composer"]');
    });
  }
});
