/**
 * Export, share and pin a conversation, in English and Chinese: the Markdown download carries the answer's
 * numbered references as links into the app, the print view shows the answers with their references and
 * nothing of the chat around them, a pinned conversation stays at the top of the list after a reload, and a
 * share link opens a read-only copy until the owner revokes it. On the app with the fake model: one rendering of
 * a checked answer (a corrected and an unsupported sentence) in the chat, the share view, the print view and the
 * Markdown file, and a share link that is a snapshot until the owner updates it. Then, on an app of its own that
 * asks everyone to sign in: a share link opened by a second account that may read the cited knowledge base, and
 * by one that may not (told which knowledge base and whom to ask).
 */
import { readFileSync } from "node:fs";
import type { Page } from "@playwright/test";
import { audit } from "./helpers/axe";
import { ask } from "./helpers/chat";
import type { OwnServer } from "./helpers/own-server";
import { expect, PORT_BASE, PORTS, test } from "./helpers/servers";
import { startTeamServer, type TeamServer } from "./helpers/team-server";

const LLM_APP = `http://127.0.0.1:${PORTS.llm}`;

const QUESTION = { en: "How many days of annual leave do full-time employees get?", zh: "报销时员工要先填写什么？" } as const;

async function conversationIdOf(page: Page): Promise<string> {
  await expect(page).toHaveURL(/[?&]c=/);
  return new URL(page.url()).searchParams.get("c")!;
}

/** Opens the Export dialog of the open conversation. */
async function openExport(page: Page) {
  await page.getByTestId("export-conversation").click();
  const dialog = page.getByTestId("export-dialog");
  await expect(dialog).toBeVisible();
  return dialog;
}

test.describe.configure({ mode: "serial", timeout: 300_000 });

for (const locale of ["en-US", "zh-CN"] as const) {
  const lang = locale === "zh-CN" ? "zh" : "en";
  test.describe(locale, () => {
    test.use({ locale });

    test("export as Markdown with linked references, print view with references, share link until revoked", async ({ page }) => {
      await page.goto("/");
      const answer = await ask(page, QUESTION[lang]);
      const id = await conversationIdOf(page);
      const chips = await answer.getByTestId("citation-chip").count();
      expect(chips).toBeGreaterThan(0);

      const dialog = await openExport(page);
      await expect(dialog).toContainText(lang === "zh" ? "分享只读链接" : "Share a read-only link");
      await audit(page, "export dialog", '[data-testid="export-dialog"]');

      const [download] = await Promise.all([page.waitForEvent("download"), dialog.getByTestId("export-markdown").click()]);
      expect(download.suggestedFilename()).toMatch(/\.md$/);
      const md = readFileSync((await download.path())!, "utf8");
      // The title is the question: said once, as the file's heading.
      expect(md).toContain(`# ${QUESTION[lang]}\n`);
      expect(md.split(QUESTION[lang]).length).toBe(2);
      expect(md).toContain(lang === "zh" ? "#### 参考来源" : "#### References");
      // Every reference is a link to its passage in this app, and the answer cites [1].
      expect(md).toMatch(new RegExp(`\\[1\\] \\[[^\\n]+\\]\\(http://127\\.0\\.0\\.1:${PORT_BASE}/documents/[^)]+\\?chunk=`));
      expect(md).toMatch(/\[1\]/);

      // Printing shows the conversation document (questions, answers, references) and hides the chat around it.
      await page.emulateMedia({ media: "print" });
      const printed = page.getByTestId("print-view");
      await expect(printed.getByTestId("shared-question")).toHaveText(QUESTION[lang]);
      await expect(printed.getByTestId("shared-reference").first()).toBeVisible();
      await expect(printed.getByTestId("citation-chip").first()).toBeVisible();
      await expect(page.getByTestId("chat-input")).toBeHidden();
      await expect(page.getByTestId("conversation-list").first()).toBeHidden();
      await page.emulateMedia({ media: "screen" });
      await expect(page.getByTestId("chat-input")).toBeVisible();

      await dialog.getByTestId("share-create").click();
      const link = await dialog.getByTestId("share-link").inputValue();
      expect(link).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${PORT_BASE}/shared/[A-Za-z0-9_-]{32}$`));
      await dialog.getByTestId("export-close").click();

      const shared = await page.context().newPage();
      await shared.goto(link);
      await expect(shared.getByTestId("shared-question")).toHaveText(QUESTION[lang]);
      await expect(shared.getByTestId("shared-badge")).toHaveText(lang === "zh" ? "分享的对话 · 只读" : "Shared conversation · read-only");
      await expect(shared.getByTestId("shared-reference").first()).toBeVisible();
      // Read-only: nothing to ask, regenerate or rate.
      await expect(shared.getByTestId("chat-input")).toHaveCount(0);
      await expect(shared.getByTestId("thumbs-up")).toHaveCount(0);
      await shared.getByTestId("citation-chip").first().click();
      await expect(shared.getByTestId("citation-popover")).toBeVisible();
      await audit(shared, "shared conversation with a citation popover");

      const again = await openExport(page);
      await expect(again.getByTestId("share-link")).toHaveValue(link);
      await again.getByTestId("share-revoke").click();
      await expect(again.getByTestId("export-note")).toHaveText(lang === "zh" ? "链接已撤销。" : "The link was revoked.");
      await shared.reload();
      await expect(shared.getByTestId("shared-error")).toHaveAttribute("data-status", "404");
      await expect(shared.getByTestId("shared-error")).toHaveText(
        lang === "zh" ? "此分享链接不存在或已被撤销。" : "This share link does not exist or was revoked.",
      );
      expect((await page.request.get(`/api/conversations/${id}/share`)).ok()).toBe(true);
    });

    test("a pinned conversation stays at the top of the list after a reload, until unpinned", async ({ page }) => {
      await page.goto("/");
      await ask(page, QUESTION[lang]);
      const older = await conversationIdOf(page);
      await page.getByTestId("new-chat").click();
      await ask(page, lang === "zh" ? "年假有多少天？" : "How do I book a meeting room?");
      const newer = await conversationIdOf(page);
      const list = page.locator("aside").getByTestId("conversation-item");
      await expect(list.first()).toHaveAttribute("data-id", newer);

      const item = page.locator(`aside [data-testid="conversation-item"][data-id="${older}"]`);
      const pin = item.getByTestId("pin-conversation");
      await expect(pin).toHaveText(lang === "zh" ? "置顶" : "Pin");
      await pin.click();
      await expect(list.first()).toHaveAttribute("data-id", older);
      await expect(list.first().getByTestId("pinned-mark")).toBeVisible();
      await expect(list.first().getByTestId("pin-conversation")).toHaveAttribute("aria-pressed", "true");

      await page.reload();
      await expect(list.first()).toHaveAttribute("data-id", older);
      await expect(list.first().getByTestId("pin-conversation")).toHaveText(lang === "zh" ? "取消置顶" : "Unpin");
      await audit(page, "conversation list with a pinned conversation", "aside");
      await list.first().getByTestId("pin-conversation").click();
      await expect(list.first()).toHaveAttribute("data-id", newer);
      await expect(page.locator(`aside [data-testid="conversation-item"][data-id="${older}"] [data-testid="pinned-mark"]`)).toHaveCount(0);
    });
  });
}

test.describe("a checked answer leaves the chat as the chat shows it", () => {
  test.use({ locale: "en-US", colorScheme: "dark" });

  test("chat, share view, print view and Markdown agree; the link is a snapshot until updated; links are listed and revoked", async ({
    page,
    browser,
  }) => {
    await page.goto(LLM_APP);
    const answer = await ask(page, "miscite: annual leave");
    await expect(answer.getByTestId("citation-moved")).toHaveCount(1);
    await expect(answer.getByTestId("unsupported-mark")).toHaveCount(1);
    const id = await conversationIdOf(page);
    /** What a view shows of the answer: its text, the chunks its chips open, its notes and who wrote it. */
    const rendering = async (root: ReturnType<Page["getByTestId"]>) => ({
      text: await root.getByTestId("answer").innerText(),
      chips: await root.getByTestId("citation-chip").evaluateAll((els) => els.map((e) => e.getAttribute("data-chunk-id"))),
      moved: await root.getByTestId("citation-moved").innerText(),
      unsupported: await root.getByTestId("unsupported-mark").innerText(),
      model: await root.getByTestId("answer-model").innerText(),
    });
    const chat = await rendering(answer);
    expect(chat.moved).toMatch(/^citation corrected \(was \[\d\]\)$/);
    expect(chat.model).toMatch(/^Written by /);

    // The history list is re-read once the conversation is saved.
    await expect.poll(async () => (await page.request.get(`${LLM_APP}/api/conversations/${id}`)).status()).toBe(200);
    const dialog = await openExport(page);
    const [download] = await Promise.all([page.waitForEvent("download"), dialog.getByTestId("export-markdown").click()]);
    const md = readFileSync((await download.path())!, "utf8");
    // The Markdown file: the checked sentence with its note, the invented one marked, the same first reference, the model.
    expect(md).toContain(`*(${chat.moved})*`);
    expect(md).toMatch(/Interns receive 45 days of leave on Mars\. \[\d\] \*\(not supported by the sources\)\*/);
    expect(md).toContain(`?chunk=${encodeURIComponent(chat.chips[0]!)}`);
    expect(md).toContain(`_${chat.model}_`);
    expect(md.match(/miscite: annual leave/g)).toHaveLength(1);
    expect(md).toMatch(/^# miscite: annual leave\n\n_Exported [^\n]+_ {2}\n_Knowledge bases: all_\n/);

    // The print view, in the dark theme: the same rendering, black on white.
    await page.emulateMedia({ media: "print" });
    const printed = page.getByTestId("print-view");
    expect(await rendering(printed)).toEqual(chat);
    const colors = await printed
      .getByTestId("answer")
      .evaluate((el) => [getComputedStyle(el).color, getComputedStyle(document.body).backgroundColor]);
    expect(colors).toEqual(["rgb(0, 0, 0)", "rgb(255, 255, 255)"]);
    await page.emulateMedia({ media: "screen" });

    await dialog.getByTestId("share-create").click();
    const link = await dialog.getByTestId("share-link").inputValue();
    await expect(dialog.getByTestId("share-update")).toHaveCount(0);
    await dialog.getByTestId("export-close").click();
    const shared = await page.context().newPage();
    await shared.goto(link);
    expect(await rendering(shared.getByTestId("shared-answer"))).toEqual(chat);

    // Asked after the link was made: not in the link, until the owner updates it.
    await ask(page, "How many days of sick leave?");
    const item = page.locator(`aside [data-testid="conversation-item"][data-id="${id}"]`);
    await expect(item.getByTestId("shared-mark")).toBeVisible();
    await expect
      .poll(async () => (await page.request.get(`${LLM_APP}/api/conversations/${id}/share`)).json())
      .toMatchObject({ share: { stale: true } });
    await shared.reload();
    await expect(shared.getByTestId("shared-answer")).toHaveCount(1);
    await expect(shared.getByTestId("shared-question")).toHaveText("miscite: annual leave");
    const again = await openExport(page);
    await expect(again.getByTestId("share-state")).toHaveAttribute("data-stale", "true");
    await again.getByTestId("share-links").locator("summary").click();
    await expect(again.locator(`[data-testid="share-link-item"][data-conversation="${id}"]`)).toBeVisible();
    await audit(page, "export dialog with a stale link and the list of links (dark)", '[data-testid="export-dialog"]');
    await again.getByTestId("share-update").click();
    await expect(again.getByTestId("share-update")).toHaveCount(0);
    await shared.reload();
    await expect(shared.getByTestId("shared-question")).toHaveCount(2);

    // In Chinese, dark, on a phone: the share view's notes and model line, and a hint without "403".
    const zh = await (await browser.newContext({ locale: "zh-CN", colorScheme: "dark", viewport: { width: 390, height: 844 } })).newPage();
    await zh.goto(link);
    const zhAnswer = zh.getByTestId("shared-answer").first();
    await expect(zhAnswer.getByTestId("unsupported-mark")).toHaveText("来源中没有依据");
    await expect(zhAnswer.getByTestId("citation-moved")).toContainText("引用已更正");
    await expect(zhAnswer.getByTestId("answer-model")).toHaveText(/^由 .+ 回答$/);
    await audit(zh, "shared conversation with its notes (zh, dark, 390 px)");
    await zh.goto(`${LLM_APP}/?c=${id}`);
    const zhDialog = await openExport(zh);
    await expect(zhDialog.getByTestId("share-links").locator("summary")).toHaveText(/^你的分享链接（\d+）$/);
    await expect(zhDialog).toContainText("之后的提问不会公开");
    await expect(zhDialog).not.toContainText("403");
    await audit(zh, "export dialog (zh, dark, 390 px)", '[data-testid="export-dialog"]');
    await zh.context().close();

    // Revoked from the list of links: the link answers 404, and the dialog offers a new one.
    await expect(again).not.toContainText("403");
    await again.locator(`[data-testid="share-link-item"][data-conversation="${id}"]`).getByTestId("share-link-revoke").click();
    await expect(again.getByTestId("share-create")).toBeVisible();
    await shared.reload();
    await expect(shared.getByTestId("shared-error")).toHaveAttribute("data-status", "404");
  });
});

test.describe("a share link opened by other accounts", () => {
  let team: TeamServer;
  let server: OwnServer;

  test.beforeAll(async () => {
    // Its own server starts here: startOwnServer waits up to two minutes for it, longer than a hook's default.
    test.setTimeout(300_000);
    team = await startTeamServer(PORT_BASE + 70, "share");
    server = team.server;
    expect((await team.admin("POST", "/api/kbs", { name: "finance", title: "Finance" })).status).toBe(201);
    for (const [who, kbs] of [
      ["alice", ["default"]],
      ["bob", ["default"]],
      ["carol", ["finance"]],
    ] as const)
      await team.inviteReader(who, [...kbs]);
  });

  test.afterAll(async () => {
    await server?.stop();
  });

  test("opens for an account that may read every cited knowledge base, not for one that may not, 404 once revoked", async ({ browser }) => {
    const alice = await team.join(browser, "alice", "en-US");
    const answered = await ask(alice, QUESTION.en);
    // A reader is not offered what their role cannot do.
    await expect(answered.getByTestId("copy-answer")).toBeVisible();
    await expect(answered.getByTestId("promote-faq")).toHaveCount(0);
    const conversation = await conversationIdOf(alice);
    // Saved (the address names it as soon as the chat starts saving it).
    await expect
      .poll(async () => (await alice.request.get(`${server.base}/api/conversations/${conversation}`)).status(), { timeout: 60_000 })
      .toBe(200);
    const dialog = await openExport(alice);
    await dialog.getByTestId("share-create").click();
    const link = await dialog.getByTestId("share-link").inputValue();
    expect(link.startsWith(`${server.base}/shared/`)).toBe(true);

    // Bob reads the default knowledge base too (and reads Chinese).
    const bob = await team.join(browser, "bob", "zh-CN");
    await bob.goto(link);
    await expect(bob.getByTestId("shared-question")).toHaveText(QUESTION.en);
    await expect(bob.getByTestId("shared-answer")).toContainText("20");
    await expect(bob.getByTestId("shared-badge")).toHaveText("分享的对话 · 只读");
    await audit(bob, "shared conversation (zh)");

    // On a phone, "Sign out" stays on one line.
    await bob.setViewportSize({ width: 390, height: 800 });
    await bob.goto(`${server.base}/`);
    const signOut = bob.getByTestId("sign-out");
    await expect(signOut).toBeVisible();
    expect((await signOut.boundingBox())!.height).toBeLessThan(30);
    await bob.goto(link);

    // Carol reads only finance: 403 from the API, and the page says why, without the conversation.
    const carol = await team.join(browser, "carol", "en-US");
    const token = link.split("/").pop()!;
    expect((await carol.request.get(`${server.base}/api/shared/${token}`)).status()).toBe(403);
    await carol.goto(link);
    await expect(carol.getByTestId("shared-error")).toHaveAttribute("data-status", "403");
    // …naming the knowledge base she lacks and whom to ask, never "403" (also in Chinese).
    await expect(carol.getByTestId("shared-error")).toHaveText(
      "This conversation quotes the knowledge base “default”, which you may not read. Ask alice@team.test, who shared it, or an administrator for access.",
    );
    await carol.evaluate(() => localStorage.setItem("kb-locale", "zh"));
    await carol.reload();
    await expect(carol.getByTestId("shared-error")).toHaveText(
      "此对话引用了知识库 “default”，你无权阅读。请向分享者 alice@team.test 或管理员申请访问权限。",
    );
    await expect(carol.getByTestId("shared-question")).toHaveCount(0);
    // Nor may she revoke it, or read the conversation it shares.
    const id = new URL(alice.url()).searchParams.get("c")!;
    expect((await carol.request.get(`${server.base}/api/conversations/${id}`)).status()).toBe(404);

    // Signed out: the share page asks to sign in first.
    const anonymous = await (await browser.newContext()).newPage();
    await anonymous.goto(link);
    await anonymous.waitForURL(/\/signin/);

    await dialog.getByTestId("share-revoke").click();
    await expect(dialog.getByTestId("share-create")).toBeVisible();
    await bob.reload();
    await expect(bob.getByTestId("shared-error")).toHaveAttribute("data-status", "404");
    await expect(bob.getByTestId("shared-error")).toHaveText("此分享链接不存在或已被撤销。");
  });
});
