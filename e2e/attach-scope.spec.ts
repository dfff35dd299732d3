/**
 * Sources picked per question and attachments (issues #53, #61), in English and Chinese: a file attached to a
 * question stays with its conversation (its chip says so; the library, its overview and MCP clients do not see
 * it; deleting the conversation deletes it), or, ticked "add to the library", goes into a knowledge base its chip
 * names; a broken file gets the upload error and the typed question stays; the question is scoped to its
 * attachment and its answer cites nothing else; after a reload the question still shows its attachment, the
 * sources picked for the conversation are restored, an edit re-asks with the question's own scope, and a document
 * deleted from the library drops out of the saved sources with a note. The scope agrees with "Search in", the
 * overview and examples, and refusals. A reader (an app of its own that asks everyone to sign in) sees the
 * paperclip disabled with the reason, never another's attachment, and an empty knowledge base explained. axe on
 * each state.
 */
import type { Locator, Page } from "@playwright/test";
import { audit } from "./helpers/axe";
import { ask } from "./helpers/chat";
import { connectMcp, mcpUrl, resultText, search } from "./helpers/mcp";
import { expect, PORT_BASE, PORTS, test } from "./helpers/servers";
import { startTeamServer, type TeamServer } from "./helpers/team-server";

const CASES = {
  en: {
    locale: "en-US",
    fact: (word: string) =>
      `# Zephyr project memo\n\nThe launch code word of the Zephyr project is ${word}. Only the Zephyr team knows it.\n`,
    question: "What is the launch code word of the Zephyr project?",
    all: "All documents",
    dropped: "no longer in the library",
    kept: "only in this conversation",
    inKb: "added to the knowledge base “default”",
    dropTitle: "Drop files to attach them to your question",
    dropKept: "They stay with this conversation",
  },
  zh: {
    locale: "zh-CN",
    fact: (word: string) => `# 天琴计划备忘录\n\n天琴计划的发布暗号是 ${word}。只有天琴团队知道这个暗号。\n`,
    question: "天琴计划的发布暗号是什么？",
    all: "全部文档",
    dropped: "已不在资料库中",
    kept: "仅在此对话中",
    inKb: "已加入知识库“default”",
    dropTitle: "松开鼠标，将文件附加到你的问题",
    dropKept: "附件只属于此对话",
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
      // Files dragged over the question box: the overlay speaks of attaching them, in the UI's language.
      await expect(page.getByTestId("add-documents")).toBeVisible();
      const dragged = await page.evaluateHandle(() => {
        const dt = new DataTransfer();
        dt.items.add(new File(["x"], "x.txt", { type: "text/plain" }));
        return dt;
      });
      const composer = page.getByTestId("composer");
      for (const type of ["dragenter", "dragover"]) await composer.dispatchEvent(type, { dataTransfer: dragged });
      await expect(page.getByTestId("drop-title")).toHaveText(c.dropTitle);
      await expect(page.getByTestId("drop-overlay")).toContainText(c.dropKept);
      await composer.dispatchEvent("dragleave", { dataTransfer: dragged });
      await expect(page.getByTestId("drop-overlay")).toHaveCount(0);

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

      // A good file: kept with the conversation, its chip shows the ingest status until it is in, then says so.
      await page.getByTestId("attach-file-input").setInputFiles({ name, mimeType: "text/markdown", buffer: Buffer.from(c.fact(word)) });
      const chip = page.getByTestId("attachment-chip");
      await expect(chip).toContainText(name);
      await expect(chip).toHaveAttribute("data-state", "done", { timeout: 120_000 });
      await expect(chip.getByTestId("attachment-status")).toContainText(c.kept);
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
      // Not in the library: not listed, not in the scope picker, not in the overview, not found by an MCP client.
      const listed = (await (await page.request.get("/api/documents")).json()) as { documents: { id: string }[] };
      expect(listed.documents.map((d) => d.id)).not.toContain(docId);
      expect((await page.request.get(`/api/documents/${encodeURIComponent(docId)}`)).ok()).toBe(true);
      expect(JSON.stringify(await (await page.request.get("/api/overview")).json())).not.toContain(name);
      const client = await connectMcp(mcpUrl(PORTS.offline));
      try {
        expect((await search(client, { query: c.question })).text).not.toContain(word);
        const listedByMcp = await client.callTool({ name: "list_documents", arguments: {} });
        expect(resultText(listedByMcp)).not.toContain(name);
      } finally {
        await client.close();
      }
      await page.getByTestId("document-scope").click();
      await expect(page.locator(`[data-testid="document-scope-item"][data-id="${docId}"]`)).toHaveCount(0);
      await page.keyboard.press("Escape");

      // Another file, ticked "add to the library": its chip names the knowledge base it went into.
      const libraryName = `zephyr-lib-${lang}-${Date.now().toString(36)}.md`;
      await page.getByTestId("attach-to-library").check();
      await page
        .getByTestId("attach-file-input")
        .setInputFiles({ name: libraryName, mimeType: "text/markdown", buffer: Buffer.from(`${c.fact(word)}\n${libraryName}\n`) });
      await expect(chip).toHaveAttribute("data-state", "done", { timeout: 120_000 });
      await expect(chip.getByTestId("attachment-status")).toContainText(c.inKb);
      await page.getByTestId("attach-to-library").uncheck();
      await ask(page, c.question);
      const libraryId = (await page.getByTestId("message-attachment").nth(1).getAttribute("data-id"))!;
      const inLibrary = (await (await page.request.get("/api/documents")).json()) as { documents: { id: string }[] };
      expect(inLibrary.documents.map((d) => d.id)).toContain(libraryId);

      // Pick the library document as the conversation's source: saved with it, named on the picker.
      await page.getByTestId("document-scope").click();
      await page.locator(`[data-testid="document-scope-item"][data-id="${libraryId}"]`).check();
      await expect(page.getByTestId("document-scope-label")).toHaveText(/Zephyr|天琴/);
      await audit(page, `scope picker (${lang})`, '[data-testid="document-scope-panel"]');
      await page.getByTestId("document-scope").click();
      await expect.poll(() => savedDocuments(page), { timeout: 30_000 }).toEqual([libraryId]);

      // Reload: the questions' attachment chips and the saved sources are back.
      await page.reload();
      await expect(page.getByTestId("message-attachment").first()).toContainText(name);
      await expect(page.getByTestId("document-scope-label")).toHaveText(/Zephyr|天琴/);
      await page.getByTestId("document-scope").click();
      await expect(page.locator(`[data-testid="document-scope-item"][data-id="${libraryId}"]`)).toBeChecked();
      await page.getByTestId("document-scope-clear").click();
      await expect(page.getByTestId("document-scope-label")).toHaveText(c.all);
      await page.getByTestId("document-scope").click();

      // An edit re-asks with the question's own scope (the attached document), not today's pick (all documents).
      await page.getByTestId("edit-question").first().click();
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
      await page.locator(`[data-testid="document-scope-item"][data-id="${libraryId}"]`).check();
      await page.getByTestId("document-scope").click();
      await expect.poll(() => savedDocuments(page), { timeout: 30_000 }).toEqual([libraryId]);
      expect((await page.request.delete(`/api/documents/${libraryId}`)).ok()).toBe(true);
      await page.reload();
      await expect(page.getByTestId("chat-notice")).toContainText(c.dropped);
      await expect(page.getByTestId("document-scope-label")).toHaveText(c.all);
      await expect.poll(() => savedDocuments(page), { timeout: 30_000 }).toEqual([]);
      // The question's chip stays (it says what was asked with).
      await expect(page.getByTestId("message-attachment")).toContainText(name);

      // Deleting the conversation deletes the file kept with it.
      const conversation = new URL(page.url()).searchParams.get("c")!;
      expect((await page.request.delete(`/api/conversations/${conversation}`)).ok()).toBe(true);
      expect((await page.request.get(`/api/documents/${encodeURIComponent(docId)}`)).status()).toBe(404);
    });
  });
}

test("a file dropped on the question box is attached to the question: the overlay says so; removing it deletes it", async ({ page }) => {
  await page.goto("/");
  const name = `dropped-${Date.now().toString(36)}.txt`;
  await expect(page.getByTestId("attach-file")).not.toHaveAttribute("aria-disabled", "true");
  // The page's drop zone listens once it knows the person may add files (the header's Add documents shows then).
  await expect(page.getByTestId("add-documents")).toBeVisible();
  const files = await page.evaluateHandle((n) => {
    const dt = new DataTransfer();
    // Its own text too: the same bytes again would be the document already there ("unchanged").
    dt.items.add(new File([`The dropped note ${n} says the orchard opens at dawn.`], n, { type: "text/plain" }));
    return dt;
  }, name);
  const composer = page.getByTestId("composer");
  for (const type of ["dragenter", "dragover"]) await composer.dispatchEvent(type, { dataTransfer: files });
  // Over the question box the overlay speaks of attaching, and of where the file goes.
  await expect(page.getByTestId("drop-title")).toHaveText("Drop files to attach them to your question");
  await expect(page.getByTestId("drop-overlay")).toContainText("They stay with this conversation");
  await composer.dispatchEvent("drop", { dataTransfer: files });
  const chip = page.getByTestId("attachment-chip");
  await expect(chip).toContainText(name);
  await expect(chip).toHaveAttribute("data-state", "done", { timeout: 120_000 });
  // The page's drop zone left it to the question box: no second upload in the tray.
  await expect(page.getByTestId("upload-tray")).toHaveCount(0);
  await expect(page.getByTestId("drop-overlay")).toHaveCount(0);
  const docId = (await chip.getAttribute("data-document-id"))!;
  expect((await page.request.get(`/api/documents/${encodeURIComponent(docId)}`)).ok()).toBe(true);
  // Removed before any question had it: deleted.
  await chip.getByTestId("attachment-remove").click();
  await expect(chip).toHaveCount(0);
  await expect.poll(async () => (await page.request.get(`/api/documents/${encodeURIComponent(docId)}`)).status()).toBe(404);
  // Files an earlier failed run added to the library.
  const listed = ((await (await page.request.get("/api/documents")).json()) as { documents: { id: string; source: string }[] }).documents;
  for (const d of listed) if (/^zephyr-lib-/.test(d.source)) expect((await page.request.delete(`/api/documents/${d.id}`)).ok()).toBe(true);
});

test("the scope agrees with Search in, the overview, the examples and refusals; the picker closes on Esc and outside; focus kept", async ({
  browser,
  page,
}) => {
  // A knowledge base of its own with one document (the other knowledge base holds the sample documents).
  const kb = `scope-${Date.now().toString(36)}`;
  expect((await page.request.post("/api/kbs", { data: { name: kb, title: "Orion" } })).ok()).toBe(true);
  try {
    const text =
      "# Orion project\n\nThe Orion project opens a satellite office in Porto.\n\n## Budget\n\nThe Orion budget for 2027 is 4.2 million euros.\n";
    const up = await page.request.post("/api/documents", {
      multipart: { kb, files: { name: "orion.md", mimeType: "text/markdown", buffer: Buffer.from(text) } },
    });
    expect(up.ok(), await up.text()).toBe(true);
    const docId = ((await up.json()) as { results: { documentId: string }[] }).results[0].documentId;

    // Each language once in each theme and at each width.
    const runs = [
      { locale: "en-US", colorScheme: "light", width: 1280, scope: "Scope", refusal: "The selected sources do not contain an answer" },
      { locale: "zh-CN", colorScheme: "dark", width: 390, scope: "文档范围", refusal: "所选来源中没有找到" },
    ] as const;
    for (const r of runs) {
      const what = `${r.locale} ${r.colorScheme} ${r.width}px`;
      const context = await browser.newContext({
        locale: r.locale,
        colorScheme: r.colorScheme,
        viewport: { width: r.width, height: 800 },
        baseURL: `http://127.0.0.1:${PORTS.offline}`,
      });
      try {
        const p = await context.newPage();
        // An action waits at most this long (not the whole test's time) for what it acts on.
        p.setDefaultTimeout(20_000);
        await p.goto("/");
        const button = p.getByTestId("document-scope");
        await expect(button).toContainText(r.scope);
        const panel = p.getByTestId("document-scope-panel");
        const item = p.locator(`[data-testid="document-scope-item"][data-id="${docId}"]`);
        if (r.width === 1280) {
          // "Search in" the Orion knowledge base: the empty chat's overview is that of its one document, and the
          // picker lists only it.
          await p.getByTestId("kb-filter").click();
          await p.locator(`[data-testid="kb-filter-option"][value="${kb}"]`).check();
          await p.keyboard.press("Escape");
          await expect(p.getByTestId("overview-covers")).toContainText("Orion");
          await button.click();
          await expect(p.getByTestId("document-scope-item")).toHaveCount(1);
          await expect(item).toBeVisible();
        } else {
          await button.click();
          await expect(item).toBeVisible();
        }
        await audit(p, `scope picker ${what}`, '[data-testid="document-scope-panel"]');
        // Esc closes the panel and gives the focus back to its button.
        await p.keyboard.press("Escape");
        await expect(panel).toHaveCount(0);
        await expect(button).toBeFocused();
        // Ticked: the label names it, the overview is that of the ticked document; a click outside closes the panel.
        await button.click();
        await item.check();
        await expect(p.getByTestId("document-scope-label")).toHaveText("Orion project");
        await p.getByTestId("empty-state").click({ position: { x: 2, y: 2 } });
        await expect(panel).toHaveCount(0);
        await expect(p.getByTestId("overview-covers")).toContainText("Orion");

        // An example question is about the scoped document (the English one's, in English); asking it keeps the
        // focus in the question box.
        if (r.locale === "en-US") {
          const example = p.getByTestId("example-question").first();
          await expect(example).toBeVisible();
          await example.click();
          await expect(p.getByTestId("chat-input")).toBeFocused();
          const answered = p.getByTestId("assistant-message").first();
          await expect(answered.getByTestId("copy-answer")).toBeVisible();
          await expect(answered).toContainText("Orion");
        }

        // A refusal under a scope names the selected sources.
        const refused = await ask(p, r.locale === "zh-CN" ? "火星基地在哪里？" : "What is the boiling point of mercury?");
        await expect(refused).toContainText(r.refusal);
        await audit(p, `scoped chat ${what}`);

        // Pinning the conversation keeps the focus on its pin (the history list is beside the chat at 1280 px).
        if (r.width === 1280) {
          await expect(p).toHaveURL(/[?&]c=/);
          const id = new URL(p.url()).searchParams.get("c")!;
          const pin = p.locator(`aside [data-testid="conversation-item"][data-id="${id}"] [data-testid="pin-conversation"]`);
          await pin.click({ timeout: 20_000 });
          await expect(pin).toHaveAttribute("aria-pressed", "true");
          await expect(pin).toBeFocused();
          await expect(pin.locator("xpath=ancestor::li").locator('[data-icon="pin"]')).toBeVisible();
          await pin.click();
          await expect(pin).toHaveAttribute("aria-pressed", "false");
        }
      } finally {
        await context.close();
      }
    }
  } finally {
    await page.request.delete(`/api/kbs/${kb}`);
  }
});

test.describe("a reader", () => {
  let team: TeamServer;

  test.beforeAll(async () => {
    // Its own server starts here: startOwnServer waits up to two minutes for it, longer than a hook's default.
    test.setTimeout(300_000);
    team = await startTeamServer(PORT_BASE + 74, "attach");
    for (const who of ["rita", "ren"]) await team.inviteReader(who, ["default"]);
    expect((await team.admin("POST", "/api/kbs", { name: "empty", title: "Empty" })).status).toBe(201);
    await team.inviteReader("ella", ["default", "empty"]);
    await team.inviteReader("enzo", ["empty"]);
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

  test("never sees a file someone attached to a question; an empty knowledge base is explained in a reader's words", async ({
    browser,
  }) => {
    // The admin attaches a file to a question: it stays with the admin's conversation.
    const word = `NEBULA${Date.now().toString(36).toUpperCase()}`;
    const form = new FormData();
    form.append("attach", "question");
    form.append("files", new Blob([`# Nebula memo\n\nThe Nebula launch code word is ${word}.\n`], { type: "text/markdown" }), "nebula.md");
    const up = await team.admin("POST", "/api/documents", form);
    expect(up.status, await up.clone().text()).toBe(200);
    const attId = ((await up.json()) as { results: { documentId: string }[] }).results[0].documentId;
    expect(attId).toBeTruthy();

    const ella = await team.join(browser, "ella", "en-US");
    const listed = (await (await ella.request.get("/api/documents")).json()) as { documents: { id: string }[] };
    expect(listed.documents.length).toBeGreaterThan(0);
    expect(listed.documents.map((d) => d.id)).not.toContain(attId);
    expect((await ella.request.get(`/api/documents/${encodeURIComponent(attId)}`)).status()).toBe(404);
    expect(JSON.stringify(await (await ella.request.get("/api/overview")).json())).not.toContain("Nebula");
    expect(JSON.stringify(await (await ella.request.get("/api/chat/examples?max=12")).json())).not.toContain("Nebula");
    const answer = await ask(ella, "What is the Nebula launch code word?");
    await expect(answer).not.toContainText(word);

    // "Search in" the empty knowledge base: the picker and the empty chat say what a reader can do.
    await ella.getByTestId("new-chat").click();
    await ella.getByTestId("kb-filter").click();
    await ella.locator('[data-testid="kb-filter-option"][value="empty"]').check();
    await ella.keyboard.press("Escape");
    await ella.getByTestId("document-scope").click();
    await expect(ella.getByTestId("document-scope-empty")).toHaveText(
      "No documents here yet. Ask an editor of this knowledge base to add some.",
    );
    await audit(ella, "empty scope picker of a reader (en)", '[data-testid="document-scope-panel"]');
    await ella.keyboard.press("Escape");
    await expect(ella.getByTestId("no-examples")).toHaveText("No documents here yet. Ask an editor of this knowledge base to add some.");
    await expect(ella.getByTestId("chat-overview")).toHaveCount(0);

    // A reader of only an empty knowledge base (Chinese): no "0 documents: .", no knowledge/ folder.
    const enzo = await team.join(browser, "enzo", "zh-CN");
    await expect(enzo.getByTestId("no-examples")).toHaveText("这里还没有文档。请联系此知识库的编辑者添加。");
    await expect(enzo.getByTestId("empty-state")).not.toContainText("knowledge/");
    await expect(enzo.getByTestId("empty-state")).not.toContainText("0 篇");
    await enzo.getByTestId("document-scope").click();
    await expect(enzo.getByTestId("document-scope-empty")).toHaveText("这里还没有文档。请联系此知识库的编辑者添加。");
    await audit(enzo, "empty chat of a reader (zh)");
  });
});
