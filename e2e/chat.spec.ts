/**
 * The chat page in a real browser against the built app on embedded defaults (no API key): the offline
 * answerer runs through the same streamText tool loop, its search goes through /api/mcp.
 */
import { ask } from "./helpers/chat";
import { expect, test } from "./helpers/servers";

test.use({ locale: "en-US" });

test("offline mode is labelled and the empty state offers questions from the documents", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByTestId("offline-note")).toHaveText(
    "offline mode: answers are quoted from your documents; set OPENAI_API_KEY for written answers",
  );
  await expect(page.getByTestId("documents-link")).toHaveAttribute("href", "/documents");
  const examples = page.getByTestId("example-question");
  await expect(examples.first()).toBeVisible();
  // An example question is answered from the documents, with a citation.
  await examples.first().click();
  const answer = page.getByTestId("assistant-message").last();
  await expect(answer.getByTestId("copy-answer")).toBeVisible();
  await expect(answer.getByTestId("citation-chip").first()).toBeVisible();
});

test("answers a question with a [n] chip that opens the chunk containing the quoted sentence", async ({ page }) => {
  await page.goto("/");
  const answer = await ask(page, "How many days of annual leave do full-time employees get?");

  const activity = answer.getByTestId("tool-activity").first();
  await expect(activity).toContainText("Searching: How many days of annual leave do full-time employees get?");
  await expect(activity.getByTestId("tool-result")).toHaveText(/— \d+ chunks? found/);

  const chip = answer.getByTestId("citation-chip").first();
  await expect(chip).toBeVisible();
  const chunkId = await chip.getAttribute("data-chunk-id");
  const answerText = await answer.getByTestId("answer").innerText();

  await chip.click();
  const popover = page.getByTestId("citation-popover");
  await expect(popover).toBeVisible();
  await expect(popover).toHaveAttribute("data-chunk-id", chunkId!);
  await expect(popover.getByTestId("chunk-title")).not.toBeEmpty();
  await expect(popover.getByTestId("open-in-document")).toHaveAttribute(
    "href",
    new RegExp(`^/documents/[^?]+\\?chunk=${encodeURIComponent(chunkId!)}`),
  );
  // The highlighted passage is the sentence the answer quotes, and it is about annual leave.
  const passage = (await popover.getByTestId("cited-passage").innerText()).trim();
  expect(passage).toMatch(/annual leave/i);
  expect(passage).toMatch(/\d+/);
  expect(answerText.replace(/\s+/g, " ")).toContain(passage.replace(/\s+/g, " ").replace(/[.。]$/, ""));

  // Escape closes it; hovering previews it too; the sources panel lists the cited chunk first.
  await page.keyboard.press("Escape");
  await expect(popover).toBeHidden();
  await page.mouse.move(0, 0);
  await chip.hover();
  await expect(popover).toBeVisible();
  await expect(popover).toHaveAttribute("data-chunk-id", chunkId!);
  await page.mouse.move(0, 0);
  await expect(popover).toBeHidden();
  await expect(answer.getByTestId("sources").getByTestId("source-item").first()).toHaveAttribute("data-chunk-id", chunkId!);
});

test("says the knowledge base does not contain an absent topic, with no citation", async ({ page }) => {
  await page.goto("/");
  const answer = await ask(page, "What is the boiling point of mercury on Jupiter?");
  await expect(answer.getByTestId("answer")).toContainText("The knowledge base does not contain an answer to this question.");
  await expect(answer.getByTestId("citation-chip")).toHaveCount(0);
  await expect(answer.getByTestId("sources").locator("h3")).toHaveCount(0);
});

test("Enter sends, Shift+Enter adds a line; copy and retry", async ({ page, context }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.goto("/");
  const input = page.getByTestId("chat-input");
  await input.fill("How many days of annual leave");
  await input.press("Shift+Enter");
  await input.pressSequentially("do full-time employees get?");
  await expect(input).toHaveValue("How many days of annual leave\ndo full-time employees get?");
  await expect(page.getByTestId("user-message")).toHaveCount(0);
  await input.press("Enter");
  await expect(page.getByTestId("user-message")).toHaveText("How many days of annual leave\ndo full-time employees get?");
  await expect(input).toHaveValue("");
  const answer = page.getByTestId("assistant-message").last();
  await expect(answer.getByTestId("retry-answer")).toBeVisible();
  await answer.getByTestId("copy-answer").click();
  await expect(answer.getByTestId("copy-answer")).toHaveText("Copied");
  expect(await page.evaluate(() => navigator.clipboard.readText())).toMatch(/annual leave.*\[\d+\]/i);
  await answer.getByTestId("retry-answer").click();
  await expect(page.getByTestId("assistant-message")).toHaveCount(1);
  await expect(page.getByTestId("assistant-message").last().getByTestId("citation-chip").first()).toBeVisible();
});

test.describe("in Chinese", () => {
  test.use({ locale: "zh-CN" });

  test("shows the UI in Chinese and quotes the Chinese handbook", async ({ page }) => {
    await page.goto("/");
    await expect(page.getByTestId("offline-note")).toContainText("离线模式");
    const answer = await ask(page, "报销时员工要先填写什么？");
    await expect(answer.getByTestId("answer")).toContainText("报销申请单");
    const chip = answer.getByTestId("citation-chip").first();
    await chip.click();
    await expect(page.getByTestId("citation-popover").getByTestId("cited-passage")).toContainText("报销申请单");
  });
});

test.describe("on a phone", () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

  test("is usable at phone width: no sideways scrolling, citation card inside the screen", async ({ page }) => {
    await page.goto("/");
    await expect(page.getByTestId("chat-input")).toBeVisible();
    const answer = await ask(page, "How many days of annual leave do full-time employees get?");
    const chip = answer.getByTestId("citation-chip").first();
    await chip.tap();
    const popover = page.getByTestId("citation-popover");
    await expect(popover).toBeVisible();
    const box = (await popover.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await expect(page.getByTestId("send").or(page.getByTestId("stop"))).toBeInViewport();
  });
});

test("dark mode follows the system preference", async ({ page }) => {
  await page.emulateMedia({ colorScheme: "dark" });
  await page.goto("/");
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  // zinc-950 background: oklch with a low lightness, or rgb with every channel dark.
  const n = (bg.match(/[\d.]+/g) ?? []).map(Number);
  if (bg.startsWith("oklch")) expect(n[0]).toBeLessThan(0.3);
  else expect(Math.max(...n.slice(0, 3))).toBeLessThan(60);
});
