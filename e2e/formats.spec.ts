/**
 * The formats read by OCR and the office, book and mail parsers, end to end on the built app (offline answerer):
 * a scanned PDF made from knowledge/'s handbook is uploaded (NDJSON progress per OCR page) and a question is answered
 * from it with page 2 cited; slides, sheet rows, an ODT, an EPUB and an e-mail answer in the chat with citations
 * that open the right slide and the right sheet row. Each upload goes into a knowledge base of its own, so the
 * answer can only come from it.
 */
import type { Page } from "@playwright/test";
import {
  EML_PHRASES,
  EPUB_PHRASES,
  makeEml,
  makeEpub,
  makeOdp,
  makeOds,
  makeOdt,
  makePptx,
  makeXlsx,
  SHEET_QUESTION,
} from "./fixtures/make-formats";
import { layoutPages, makeScannedPdf, renderPage, sampleText } from "./fixtures/make-scans";
import { INVENTORY, LEAD_TIMES, makeInventoryXlsx, makeLeadTimesPptx } from "./fixtures/make-structured";
import { ask } from "./helpers/chat";
import { expect, PORTS, test } from "./helpers/servers";

test.use({ locale: "en-US", viewport: { width: 1000, height: 800 } });
test.describe.configure({ mode: "serial" });

const BASE = `http://127.0.0.1:${PORTS.offline}`;
const RUN = Date.now().toString(36);
const KB = { scan: `scan-${RUN}`, office: `office-${RUN}`, open: `open-${RUN}`, sheet: `sheet-${RUN}`, deck: `deck-${RUN}` };

type Event = {
  type: string;
  index?: number;
  stage?: string;
  done?: number;
  total?: number;
  results?: { status: string; error?: unknown }[];
};

async function upload(kb: string, files: { name: string; data: Buffer }[]): Promise<Event[]> {
  const fd = new FormData();
  for (const f of files) fd.append("files", new File([new Uint8Array(f.data)], f.name));
  fd.append("kb", kb);
  const res = await fetch(`${BASE}/api/documents`, { method: "POST", body: fd, headers: { accept: "application/x-ndjson" } });
  expect(res.status).toBe(200);
  const events = (await res.text())
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Event);
  expect(events.at(-1)?.results?.map((r) => r.status)).toEqual(files.map(() => "added"));
  return events;
}

test.beforeAll(async () => {
  for (const [name, kb] of Object.entries(KB)) {
    const res = await fetch(`${BASE}/api/kbs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: kb, title: `${name} ${RUN}` }),
    });
    expect(res.status).toBe(201);
  }
});

test.afterAll(async () => {
  for (const kb of Object.values(KB)) await fetch(`${BASE}/api/kbs/${kb}`, { method: "DELETE" });
});

/** Limits the chat to one knowledge base (the header's filter). */
async function onlyKb(page: Page, kb: string) {
  await page.goto("/");
  await page.getByTestId("kb-filter").click();
  await page.locator(`[data-testid="kb-filter-option"][value="${kb}"]`).check();
  await page.keyboard.press("Escape");
}

/** Clicks the answer's first citation chip, then "Open in document". */
async function openFirstCitation(page: Page, answer: ReturnType<Page["getByTestId"]>) {
  const chip = answer.getByTestId("citation-chip").first();
  const chunkId = (await chip.getAttribute("data-chunk-id"))!;
  await chip.click();
  await page.getByTestId("citation-popover").getByTestId("open-in-document").click();
  await expect(page).toHaveURL(new RegExp(`/documents/[^?]+\\?chunk=${encodeURIComponent(chunkId)}`));
}

test("a scanned PDF is read by OCR page by page, and a question about its second page cites page 2", async ({ page }) => {
  test.slow(); // OCR of two pages on a shared CPU
  const pages = layoutPages(sampleText("employee-handbook.md"), { linesPerPage: 12, maxPages: 2 });
  expect(pages[1].join(" ")).toContain("work remotely up to three days per week");
  const events = await upload(KB.scan, [
    { name: `handbook-scan-${RUN}.pdf`, data: await makeScannedPdf(await Promise.all(pages.map(renderPage))) },
  ]);
  // The tray hears each page as OCR starts it.
  expect(events.filter((e) => e.stage === "ocr").map((e) => `${e.done}/${e.total}`)).toEqual(["1/2", "2/2"]);

  await onlyKb(page, KB.scan);
  const answer = await ask(page, "How many days per week may employees work remotely?");
  await expect(answer.getByTestId("answer")).toContainText("three days per week");
  await expect(answer.getByTestId("source-item").first()).toContainText("p. 2");
  await openFirstCitation(page, answer);
  // The recognised text, shown page by page; the cited passage on page 2.
  await expect(page.getByTestId("page-heading")).toHaveText(["Page 1", "Page 2"]);
  await expect(page.getByTestId("document-body")).toContainText("Lumen Harbor Labs");
  const cited = page.locator('[data-testid="doc-block"][data-highlighted="true"]', { hasText: "three days per week" });
  await expect(cited.first()).toHaveAttribute("data-page", "2");
});

test("PPTX, XLSX, ODT, EPUB and EML answer in the chat; citations open the slide and the sheet row", async ({ page }) => {
  test.slow(); // seven questions
  await upload(KB.office, [
    { name: `lighting-${RUN}.pptx`, data: await makePptx() },
    { name: `depots-${RUN}.xlsx`, data: await makeXlsx() },
    { name: `dock-${RUN}.odt`, data: await makeOdt() },
    { name: `saltmere-${RUN}.epub`, data: await makeEpub() },
    { name: `ferry-${RUN}.eml`, data: makeEml() },
  ]);
  await onlyKb(page, KB.office);

  // A slide's notes: cited as slide 2, opened on that slide's section.
  let answer = await ask(page, "What does the Quarrydove warranty cover?");
  await expect(answer.getByTestId("source-item").first()).toContainText("Slide 2 — Lantern supplier");
  await expect(answer.getByTestId("source-item").first()).toContainText("p. 2");
  await openFirstCitation(page, answer);
  await expect(page.locator('[data-testid="doc-block"][data-highlighted="true"]', { hasText: "Quarrydove" }).first()).toBeVisible();
  await expect(page.getByTestId("document-body").getByRole("heading", { name: "Slide 2 — Lantern supplier" })).toBeVisible();

  // A sheet row: the sheet is a table and the cited row is the passage.
  await onlyKb(page, KB.office);
  answer = await ask(page, `Tell me about ${SHEET_QUESTION.phrase}`);
  await expect(answer.getByTestId("source-item").first()).toContainText(`Depots, row ${SHEET_QUESTION.row}`);
  await openFirstCitation(page, answer);
  await expect(page.getByTestId("csv-table").first().locator("th")).toHaveText(["depot", "manager", "forklifts"]);
  const row = page.locator('[data-testid="csv-row"][data-passage="true"]');
  await expect(row).toHaveCount(1);
  await expect(row).toContainText(SHEET_QUESTION.depot);
  await expect(row).toHaveAttribute("data-row", String(SHEET_QUESTION.row));

  for (const [question, title] of [
    ["Who checks every mooring line before sunset?", "Dock safety"],
    ["How many times was the Saltmere fog bell rung?", EPUB_PHRASES.title],
    ["When does the Kestrel ferry leave from Monday?", EML_PHRASES.subject],
  ] as const) {
    await onlyKb(page, KB.office);
    answer = await ask(page, question);
    await expect(answer.getByTestId("source-item").first().getByTestId("source-link"), question).toHaveText(title);
  }
});

test("ODP slides and ODS rows are cited like PPTX slides and XLSX rows", async ({ page }) => {
  await upload(KB.open, [
    { name: `lighting-${RUN}.odp`, data: await makeOdp() },
    { name: `depots-${RUN}.ods`, data: await makeOds() },
  ]);
  await onlyKb(page, KB.open);
  let answer = await ask(page, "What does the Quarrydove warranty cover?");
  await expect(answer.getByTestId("source-item").first()).toContainText("Slide 2 — Lantern supplier");
  await onlyKb(page, KB.open);
  answer = await ask(page, `Tell me about ${SHEET_QUESTION.phrase}`);
  await openFirstCitation(page, answer);
  await expect(page.locator('[data-testid="csv-row"][data-passage="true"]')).toContainText(SHEET_QUESTION.depot);
});

test("a sheet with a title row answers a cell's question citing its row; a slide table answers a cell's question", async ({ page }) => {
  test.slow(); // two uploads and two questions on a shared CPU
  await upload(KB.sheet, [{ name: `stock-${RUN}.xlsx`, data: await makeInventoryXlsx() }]);
  await upload(KB.deck, [{ name: `review-${RUN}.pptx`, data: await makeLeadTimesPptx() }]);

  await onlyKb(page, KB.sheet);
  let answer = await ask(page, INVENTORY.question);
  await expect(answer.getByTestId("answer")).toContainText(INVENTORY.shown["Unit cost"]);
  await expect(answer.getByTestId("source-item").first()).toContainText(`${INVENTORY.sheet}, row ${INVENTORY.row}`);
  await openFirstCitation(page, answer);
  // The sheet is a table under its real header (the title row above it is text), the cited record its row.
  await expect(page.getByTestId("document-body")).toContainText(INVENTORY.title);
  await expect(page.getByTestId("csv-table").first().locator("th")).toHaveText([...INVENTORY.header]);
  const row = page.locator('[data-testid="csv-row"][data-passage="true"]');
  await expect(row).toHaveCount(1);
  await expect(row).toHaveAttribute("data-row", String(INVENTORY.row));
  await expect(row).toContainText(INVENTORY.shown["Total cost"]);

  await onlyKb(page, KB.deck);
  answer = await ask(page, LEAD_TIMES.question);
  await expect(answer.getByTestId("answer")).toContainText("17");
  await expect(answer.getByTestId("source-item").first()).toContainText(`Slide 2 — ${LEAD_TIMES.title}`);
});
