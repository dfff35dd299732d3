/**
 * What a careful tester found in the reading views (#43 point 12), in a real browser against the built app
 * (offline answerer): DOCX and Markdown tables are tables in the document view; a FAQ answer's Markdown is
 * drawn, once, and its exact source is a strong match; the citation card scrolls to its highlighted sentence;
 * Escape closes the source panel beside the chat.
 */
import { DOCX_PHRASES, makeDocx, makePdf } from "./fixtures/make-fixtures";
import { ask } from "./helpers/chat";
import { uploadsToRemove } from "./helpers/documents";
import { expect, test } from "./helpers/servers";

test.use({ locale: "en-US" });
test.describe.configure({ mode: "serial" });

const RUN = Date.now().toString(36);
const { upload, removeAll } = uploadsToRemove();

const faqIds: string[] = [];

test.afterAll(async ({ request }) => {
  await removeAll(request);
  for (const id of faqIds) await request.delete(`/api/faqs/${id}`);
});

test("DOCX and Markdown tables are drawn as tables in the document view", async ({ page, request }) => {
  const docx = await upload(request, `handbook-${RUN}.docx`, await makeDocx(), "application/octet-stream");
  await page.goto(`/documents/${docx}`);
  const table = page.getByTestId("document-body").getByTestId("doc-table");
  await expect(table).toHaveCount(1);
  await expect(table.locator("th")).toHaveText(["Item", "Budget", "Vendor"]);
  await expect(table.locator("tbody tr").first().locator("td")).toHaveText(["Monitor", "300", DOCX_PHRASES.tableCell]);
  expect(await page.getByTestId("document-body").innerText()).not.toContain("| ---");

  const md = `# Harbour ferries ${RUN}\n\nThe ferries of the bay, by pier.\n\n| Ferry | Pier | Departs |\n| --- | --- | --- |\n| Quillon Star | 4 | 07:15 |\n| Marrow Belle | 9 | 08:40 |\n`;
  const mdId = await upload(request, `ferries-${RUN}.md`, Buffer.from(md), "text/markdown");
  await page.goto(`/documents/${mdId}`);
  const mdTable = page.getByTestId("document-body").getByTestId("doc-table");
  await expect(mdTable.locator("th")).toHaveText(["Ferry", "Pier", "Departs"]);
  await expect(mdTable.locator("tbody tr")).toHaveCount(2);
  await expect(mdTable.locator("tbody tr").nth(1).locator("td")).toHaveText(["Marrow Belle", "9", "08:40"]);
});

test("a FAQ answer's Markdown is drawn once, and the FAQ entry it quotes is a strong match", async ({ page, request }) => {
  const question = `How do I book the wombat studio ${RUN}?`;
  const answer = "Book the wombat studio in the **Rooms** app. Bookings need a *team code*.";
  const res = await request.post("/api/faqs", { data: { question, answer } });
  expect(res.ok()).toBe(true);
  faqIds.push(((await res.json()) as { faq: { id: string } }).faq.id);

  await page.goto("/");
  const reply = await ask(page, `What's the way to reserve the wombat studio ${RUN}?`);
  const card = reply.getByTestId("faq-answer");
  await expect(card).toBeVisible();
  const text = card.getByTestId("faq-answer-text");
  await expect(text.locator("strong")).toHaveText("Rooms");
  await expect(text.locator("em")).toHaveText("team code");
  await expect(text).not.toContainText("**");
  // The offline answer only quotes the entry: it is not repeated under the card.
  await expect(reply.getByTestId("answer")).toHaveCount(0);
  await expect(reply.getByTestId("answer-actions")).toBeVisible();
  const faqSource = reply.locator('[data-testid="source-item"][data-chunk-id^="faq:"]');
  await expect(faqSource.getByTestId("source-relevance")).toHaveText("Strong match");
});

test("the citation card scrolls its text to the highlighted sentence", async ({ page, request }) => {
  const filler = Array.from(
    { length: 12 },
    (_, i) => `Warehouse number ${i + 1} along the old quay stored grain, timber and salted fish for the merchants of the town.`,
  ).join(" ");
  const fact = "The Wobblecrest shuttle departs from pier nineteen at a quarter to seven every Tuesday.";
  await upload(request, `quay-${RUN}.md`, Buffer.from(`# Old quay ${RUN}\n\n${filler} ${fact}\n`), "text/markdown");
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto("/");
  const reply = await ask(page, "When does the Wobblecrest shuttle depart?");
  await reply.getByTestId("citation-chip").first().click();
  const popover = page.getByTestId("citation-popover");
  const box = popover.getByTestId("chunk-text");
  const mark = popover.getByTestId("cited-passage");
  await expect(mark).toContainText("Wobblecrest shuttle");
  // The text is longer than its box, and the box shows the highlighted sentence.
  expect(await box.evaluate((el) => el.scrollHeight > el.clientHeight)).toBe(true);
  const [b, m] = [await box.boundingBox(), await mark.boundingBox()];
  expect(m!.y).toBeGreaterThanOrEqual(b!.y);
  expect(m!.y + m!.height).toBeLessThanOrEqual(b!.y + b!.height);
});

test("a sentence drawn over two lines of a PDF is quoted whole", async ({ page, request }) => {
  const sentence = `The Hollowmere pumping station was rebuilt in 1964 after the spring floods had damaged its intake gates (ref ${RUN}).`;
  await upload(request, `pumping-${RUN}.pdf`, await makePdf([sentence], `Pumping station ${RUN}`), "application/pdf");
  await page.goto("/");
  const reply = await ask(page, "When was the Hollowmere pumping station rebuilt?");
  // makePdf wraps at 80 characters: the sentence's second line is part of the quote, not a sentence of its own.
  await expect(reply.getByTestId("answer").locator("li").first()).toContainText(sentence);
});

test("Escape closes the source panel beside the chat, after closing an open citation card first", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto("/");
  const reply = await ask(page, "How many days of annual leave do full-time employees get?");
  await reply.getByTestId("citation-chip").first().click();
  await page.getByTestId("citation-popover").getByTestId("open-in-document").click();
  const panel = page.getByTestId("source-panel");
  await expect(panel.getByTestId("document-title")).toBeVisible();

  // A citation card open over the chat: Escape closes the card, and the panel stays.
  await reply.getByTestId("citation-chip").first().click();
  await expect(page.getByTestId("citation-popover")).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("citation-popover")).toHaveCount(0);
  await expect(panel).toBeVisible();

  await page.keyboard.press("Escape");
  await expect(panel).toHaveCount(0);
  await expect(page.getByTestId("user-message")).toHaveCount(1);
});
