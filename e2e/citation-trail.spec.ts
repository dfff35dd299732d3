/**
 * From an answer's [n] to the highlighted passage in the document, for Markdown, CSV and PDF documents;
 * the sources panel (numbered by first citation, snippets, relevance words); Copy with references.
 * Real browser, built app on embedded defaults (offline answerer).
 */
import type { Page } from "@playwright/test";
import { CSV_QUESTION, makeCsv, makePdf, PDF_PHRASES } from "./fixtures/make-fixtures";
import { ask } from "./helpers/chat";
import { uploadsToRemove } from "./helpers/documents";
import { expect, test } from "./helpers/servers";

test.use({ locale: "en-US" });
test.describe.configure({ mode: "serial" });

const RUN = Date.now().toString(36);
const { upload, removeAll } = uploadsToRemove();

// Below 1024 px "Open in document" opens the full page (wider screens open it beside the chat: e2e/chat-ui.spec.ts).
test.use({ viewport: { width: 1000, height: 800 } });

test.beforeAll(async ({ request }) => {
  await upload(request, `mascots-${RUN}.csv`, makeCsv(), "text/csv");
  await upload(request, `turbine-${RUN}.pdf`, await makePdf(), "application/pdf");
});

test.afterAll(async ({ request }) => {
  await removeAll(request);
});

/** Clicks the first chip, then "Open in document"; returns the cited chunk id. */
async function openFirstCitation(page: Page, answer: ReturnType<Page["getByTestId"]>): Promise<string> {
  const chip = answer.getByTestId("citation-chip").first();
  const chunkId = (await chip.getAttribute("data-chunk-id"))!;
  await chip.click();
  const popover = page.getByTestId("citation-popover");
  await popover.getByTestId("open-in-document").click();
  await expect(page).toHaveURL(new RegExp(`/documents/[^?]+\\?chunk=${encodeURIComponent(chunkId)}`));
  await expect(page.getByTestId("document-title")).toBeVisible();
  return chunkId;
}

test("Markdown: [n] → Open in document lands on the highlighted passage, the document rendered as Markdown", async ({ page }) => {
  await page.goto("/");
  const answer = await ask(page, "How many days of annual leave do full-time employees get?");
  await openFirstCitation(page, answer);
  const highlighted = page.locator('[data-testid="doc-block"][data-highlighted="true"]');
  await expect(highlighted.first()).toBeVisible();
  await expect(highlighted.first()).toBeInViewport();
  await expect(page.locator('[data-testid="doc-block"][data-highlighted="true"]', { hasText: /annual leave/i }).first()).toBeVisible();
  await expect(page.getByTestId("cited-note")).toBeVisible();
  // Rendered as a reader sees it: headings are headings, no literal "##".
  const body = page.getByTestId("document-body");
  await expect(body.locator("h2").first()).toBeVisible();
  expect(await body.innerText()).not.toMatch(/^#{1,6}\s/m);
  // Chunk boundaries are there on demand, not in the way.
  await expect(page.getByTestId("chunk-marker")).toHaveCount(0);
  await page.getByTestId("show-chunks").check();
  await expect(page.getByTestId("chunk-marker").first()).toBeVisible();
});

test("CSV: the document is a table and the cited row is highlighted", async ({ page }) => {
  await page.goto("/");
  const answer = await ask(page, `Tell me about ${CSV_QUESTION.phrase}`);
  await openFirstCitation(page, answer);
  const table = page.getByTestId("csv-table");
  await expect(table.first()).toBeVisible();
  await expect(table.first().locator("th")).toHaveText(["city", "country", "mascot", "population"]);
  // The chunk's rows are highlighted; the row holding the quoted cell is marked as the passage.
  await expect(page.locator('[data-testid="csv-row"][data-highlighted="true"]').first()).toBeVisible();
  const row = page.locator('[data-testid="csv-row"][data-passage="true"]');
  await expect(row).toHaveCount(1);
  await expect(row).toContainText(CSV_QUESTION.phrase);
  await expect(row).toBeInViewport();
  await expect(row).toContainText(CSV_QUESTION.city);
});

test("PDF: the document is shown page by page and the cited passage is highlighted on its page", async ({ page }) => {
  await page.goto("/");
  const answer = await ask(page, "Tell me about the Quillfeather anomaly");
  await expect(answer.getByTestId("source-item").first()).toContainText(`p. ${PDF_PHRASES["Quillfeather anomaly"]}`);
  await openFirstCitation(page, answer);
  await expect(page.getByTestId("page-heading")).toHaveText(["Page 1", "Page 2", "Page 3"]);
  const block = page.locator('[data-testid="doc-block"][data-highlighted="true"]', { hasText: "Quillfeather" });
  await expect(block).toBeVisible();
  await expect(block).toHaveAttribute("data-page", "2");
  await expect(page.getByTestId("cited-note")).toContainText("Page 2");
});

test("sources are numbered from 1 by first citation, with snippet and relevance word, and link to the document", async ({
  page,
  context,
}) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.goto("/");
  const answer = await ask(page, "How many days of annual leave do full-time employees get?");
  const chips = answer.getByTestId("citation-chip");
  await expect(chips.first()).toHaveAttribute("data-n", "1");
  const items = answer.getByTestId("sources").getByTestId("source-item");
  await expect(items.first()).toHaveAttribute("data-n", "1");
  const snippet = await items.first().getByTestId("source-snippet").innerText();
  expect(snippet.length).toBeGreaterThan(10);
  expect(snippet).not.toMatch(/(^|\s)#{1,6}\s|\*\*/);
  await expect(items.first().getByTestId("source-relevance")).toHaveText(/^(Strong|Good|Weaker) match$/);
  await expect(items.first()).not.toContainText(/0\.0\d/);

  // Copy carries the reference list.
  await answer.getByTestId("copy-answer").click();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toMatch(/\[1\]/);
  expect(copied).toMatch(/\n\nReferences\n\[1\] [^\n]+/);

  await items.first().getByTestId("source-link").click();
  await expect(page).toHaveURL(/\/documents\/[^?]+\?chunk=/);
  await expect(page.locator('[data-highlighted="true"]').first()).toBeInViewport();
});
