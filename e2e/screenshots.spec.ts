/**
 * The README's screenshots of the chat with a source open (docs/screenshots/chat-source-*.png): the side
 * panel at 1280×800, the citation sheet at 390×844. Opt-in: SCREENSHOTS=1 npx playwright test e2e/screenshots.spec.ts
 */
import { ask } from "./helpers/chat";
import { expect, test } from "./helpers/servers";

test.use({ locale: "en-US", colorScheme: "light" });
test.skip(!process.env.SCREENSHOTS, "screenshots are taken on request (SCREENSHOTS=1)");

const QUESTION = "How many days of annual leave do full-time employees get?";

for (const { width, height, name } of [
  { width: 1280, height: 800, name: "chat-source-panel-1280" },
  { width: 390, height: 844, name: "chat-source-390" },
]) {
  test(`chat with a source open at ${width}×${height}`, async ({ page }) => {
    await page.setViewportSize({ width, height });
    await page.goto("/");
    const answer = await ask(page, QUESTION);
    await answer.getByTestId("citation-chip").first().click();
    if (width >= 1024) {
      await page.getByTestId("citation-popover").getByTestId("open-in-document").click();
      await expect(page.getByTestId("source-panel").getByTestId("document-title")).toBeVisible();
    } else {
      await expect(page.getByTestId("citation-popover")).toBeVisible();
    }
    await page.screenshot({ path: `docs/screenshots/${name}.png` });
  });
}
