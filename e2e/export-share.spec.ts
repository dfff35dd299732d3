/**
 * Export, share and pin a conversation, in English and Chinese: the Markdown download carries the answer's
 * numbered references as links into the app, the print view shows the answers with their references and
 * nothing of the chat around them, a pinned conversation stays at the top of the list after a reload, and a
 * share link opens a read-only copy until the owner revokes it. Then, on an app of its own that asks everyone
 * to sign in: a share link opened by a second account that may read the cited knowledge base, and by one that
 * may not (403).
 */
import { readFileSync } from "node:fs";
import type { Page } from "@playwright/test";
import { audit } from "./helpers/axe";
import { ask } from "./helpers/chat";
import type { OwnServer } from "./helpers/own-server";
import { expect, PORT_BASE, test } from "./helpers/servers";
import { startTeamServer, type TeamServer } from "./helpers/team-server";

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
      expect(md).toContain(`## ${QUESTION[lang]}`);
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

  test("opens for an account that may read every cited knowledge base, 403 for one that may not, 404 once revoked", async ({ browser }) => {
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
    await expect(carol.getByTestId("shared-error")).toHaveText("This conversation holds content from a knowledge base you may not read.");
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
