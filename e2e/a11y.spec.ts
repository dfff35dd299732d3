/**
 * Accessibility audit with axe-core on every page and dialog, in English and Chinese, light and dark:
 * no critical or serious violation. Also: `<html lang>` follows the UI language, and Chinese text is drawn
 * with a CJK font (no glyph falls back to a box).
 */
import { audit } from "./helpers/axe";
import { ask } from "./helpers/chat";
import { expect, test } from "./helpers/servers";

// axe runs several times per test, which takes a while on a small machine.
test.describe.configure({ timeout: 300_000 });

const QUESTION = { en: "How many days of annual leave do full-time employees get?", zh: "报销时员工要先填写什么？" } as const;

for (const locale of ["en-US", "zh-CN"] as const) {
  for (const colorScheme of ["light", "dark"] as const) {
    test.describe(`${locale}, ${colorScheme}`, () => {
      test.use({ locale, colorScheme });
      const lang = locale === "zh-CN" ? "zh" : "en";

      test("chat (empty, answered, citation popover, feedback form), Connect dialog and the mobile history drawer", async ({ page }) => {
        await page.goto("/");
        await expect(page.getByTestId("example-question").first()).toBeVisible();
        await expect(page.locator("html")).toHaveAttribute("lang", lang === "zh" ? "zh-CN" : "en");
        await audit(page, "empty chat");

        const answer = await ask(page, QUESTION[lang]);
        await audit(page, "answered chat");
        await answer.getByTestId("citation-chip").first().click();
        await expect(page.getByTestId("citation-popover")).toBeVisible();
        await audit(page, "citation popover");
        await page.getByTestId("citation-popover").getByTestId("open-in-document").click();
        await expect(page.getByTestId("source-panel").getByTestId("document-title")).toBeVisible();
        await audit(page, "source panel");
        await page.getByTestId("source-panel-close").click();
        await page.locator("body").click({ position: { x: 5, y: 300 } });
        await page.keyboard.press("?");
        await expect(page.getByTestId("shortcuts-dialog")).toBeVisible();
        await audit(page, "shortcuts dialog");
        await page.keyboard.press("Escape");
        await answer.getByTestId("thumbs-up").click();
        await expect(answer.getByTestId("feedback-form")).toBeVisible();
        await audit(page, "feedback form");

        await page.getByTestId("connect-open").click();
        await expect(page.getByRole("dialog")).toBeVisible();
        await audit(page, "Connect dialog");
        await page.keyboard.press("Escape");

        await page.setViewportSize({ width: 390, height: 844 });
        await page.getByTestId("history-open").click();
        await expect(page.getByTestId("history-close")).toBeVisible();
        await audit(page, "history drawer (mobile)");
      });

      test("documents library, a document with a cited passage, knowledge bases", async ({ page, request }) => {
        await page.goto("/documents");
        await expect(page.getByTestId("document-row").first()).toBeVisible();
        await audit(page, "documents");

        const { documents } = await (await request.get("/api/documents")).json();
        const doc = documents[0];
        const { chunks } = await (await request.get(`/api/documents/${doc.id}`)).json();
        await page.goto(`/documents/${doc.id}?chunk=${chunks[0].id}`);
        await expect(page.locator('[data-highlighted="true"]').first()).toBeVisible();
        await page.getByTestId("show-chunks").check();
        await audit(page, "document view");

        await page.goto("/kbs");
        await expect(page.locator("main")).toBeVisible();
        await audit(page, "knowledge bases");

        await page.goto("/faq");
        await expect(page.locator("main")).toBeVisible();
        await page.waitForLoadState("networkidle");
        await audit(page, "FAQ");
      });

      test("sign-in, people (with an invite link), the join page and the audit log", async ({ page }) => {
        await page.goto("/signin");
        await expect(page.getByTestId("signin-form")).toBeVisible();
        await page.getByText(lang === "zh" ? "管理员密钥（恢复用）" : "Admin secret (recovery)").click();
        await audit(page, "sign-in");

        await page.goto("/people");
        await expect(page.getByTestId("invite-form")).toBeVisible();
        await page.getByTestId("invite-role").selectOption("reader");
        await page.getByTestId("invite-submit").click();
        const link = await page.getByTestId("invite-link").inputValue();
        await audit(page, "people, with an invite link");

        await page.goto(link);
        await expect(page.getByTestId("join-form")).toBeVisible();
        await audit(page, "join");

        await page.goto("/audit");
        await expect(page.getByTestId("audit-row").first()).toBeVisible();
        await audit(page, "audit log");
      });
    });
  }
}

test.describe("Chinese text is drawn with a CJK font", () => {
  test.use({ locale: "zh-CN" });

  test("the title, the example questions and the ＋ use a font that has the glyphs", async ({ page }) => {
    await page.goto("/");
    await expect(page.getByTestId("example-question").first()).toBeVisible();
    // The upload button appears once the viewer's access is known (a request after the first paint).
    await expect(page.getByTestId("add-documents")).toBeVisible();
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("DOM.enable");
    await cdp.send("CSS.enable");
    const { root } = await cdp.send("DOM.getDocument", { depth: -1 });
    const fontsOf = async (selector: string) => {
      const { nodeId } = await cdp.send("DOM.querySelector", { nodeId: root.nodeId, selector });
      expect(nodeId, selector).toBeGreaterThan(0);
      const { fonts } = await cdp.send("CSS.getPlatformFontsForNode", { nodeId });
      return fonts;
    };
    for (const selector of ["h1", '[data-testid="add-documents"]', '[data-testid="offline-badge"]']) {
      const fonts = await fontsOf(selector);
      expect(fonts.length, selector).toBeGreaterThan(0);
      // Every glyph was drawn by a real font; a CJK face drew the Chinese ones (no last-resort box font).
      for (const f of fonts) expect(f.familyName, `${selector}: ${JSON.stringify(fonts)}`).not.toMatch(/LastResort|Tofu/i);
      expect(
        fonts.some((f) => /CJK|Noto Sans SC|Source Han|WenQuanYi|PingFang|YaHei|Droid Sans Fallback/i.test(f.familyName)),
        `${selector}: ${JSON.stringify(fonts)}`,
      ).toBe(true);
    }
  });
});
