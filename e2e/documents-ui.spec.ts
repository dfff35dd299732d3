/**
 * Documents in a real browser (Debian Chromium) against the built server: drag-and-drop onto the chat
 * page with per-file progress, a question answered from an uploaded file with a citation to it, the
 * file picker with cancel, and the library page (search, chunks view, delete).
 */
import type { Page } from "@playwright/test";
import { makeCorruptPdf, makeCsv, makeMarkdown } from "./fixtures/make-fixtures";
import { connectMcp, mcpUrl, search } from "./helpers/mcp";
import { expect, PORTS, test } from "./helpers/servers";

const RUN = Date.now().toString(36);
const LIGHTHOUSE = {
  name: `vellichor-lighthouse-${RUN}.md`,
  title: "Vellichor Lighthouse",
  body: `The Vellichor lighthouse was automated in 1987, after its last keeper retired to the village of Osterby. (run ${RUN})`,
};

/** Drops files on the page the way a browser does: dragenter, dragover, drop with a DataTransfer of Files. */
async function dropFiles(page: Page, files: { name: string; data: Buffer; type?: string }[]) {
  const payload = files.map((f) => ({ name: f.name, type: f.type ?? "", b64: f.data.toString("base64") }));
  const dataTransfer = await page.evaluateHandle((list) => {
    const dt = new DataTransfer();
    for (const f of list) {
      const bin = atob(f.b64);
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      dt.items.add(new File([bytes], f.name, { type: f.type }));
    }
    return dt;
  }, payload);
  // The page is server-rendered: a dragenter that comes before React has attached its listeners is lost.
  await expect(async () => {
    await page.dispatchEvent("body", "dragenter", { dataTransfer });
    await expect(page.getByTestId("drop-overlay")).toBeVisible({ timeout: 500 });
  }).toPass({ timeout: 20_000 });
  await page.dispatchEvent("body", "dragover", { dataTransfer });
  await page.dispatchEvent("body", "drop", { dataTransfer });
  await expect(page.getByTestId("drop-overlay")).toBeHidden();
}

const item = (page: Page, name: string) => page.locator(`[data-testid="upload-item"][data-name="${name}"]`);

test.describe.configure({ mode: "serial" });

test("dropping three files shows per-file progress; then a question is answered with a citation to one", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByTestId("chat-input")).toBeVisible();

  await dropFiles(page, [
    { name: LIGHTHOUSE.name, data: makeMarkdown(LIGHTHOUSE.body, LIGHTHOUSE.title), type: "text/markdown" },
    {
      name: `harbour-cities-${RUN}.csv`,
      data: Buffer.concat([makeCsv(), Buffer.from(`Osterby-${RUN},Denmark,Fyr Fritz,4100\n`)]),
      type: "text/csv",
    },
    { name: "damaged.pdf", data: makeCorruptPdf(), type: "application/pdf" },
  ]);

  await expect(page.getByTestId("upload-item")).toHaveCount(3);
  for (const name of [LIGHTHOUSE.name, `harbour-cities-${RUN}.csv`]) {
    await expect(item(page, name)).toHaveAttribute("data-status", "done");
    await expect(item(page, name).getByTestId("upload-progress")).toHaveAttribute("aria-valuenow", "100");
    await expect(item(page, name).getByTestId("upload-status")).toContainText(/Done|完成/);
  }
  const failed = item(page, "damaged.pdf");
  await expect(failed).toHaveAttribute("data-status", "failed");
  await expect(failed.getByTestId("upload-status")).toContainText("damaged.pdf");
  await expect(failed.getByTestId("upload-status")).toContainText("corrupt");

  await page.getByTestId("chat-input").fill("When was the Vellichor lighthouse automated?");
  await page.getByTestId("send").click();
  const chip = page.locator(`[data-testid="citation-chip"][aria-label*="${LIGHTHOUSE.title}"]`).first();
  await expect(chip).toBeVisible({ timeout: 60_000 });
  await chip.click();
  const popover = page.getByTestId("citation-popover");
  await expect(popover).toContainText(LIGHTHOUSE.name);
  await expect(popover).toContainText("automated in 1987");
});

test("the file picker uploads several files, and a file can be cancelled without affecting the others", async ({ page }) => {
  await page.goto("/documents");
  await expect(page.getByTestId("documents-table")).toBeVisible();
  // big enough that embedding it takes a while: it is cancelled long before it could finish
  const big = Buffer.from(Array.from({ length: 150_000 }, (_, i) => `Line ${i} of the cancelled bulk file ${RUN}.`).join("\n"));
  await page.getByTestId("add-documents-input").setInputFiles([
    { name: `bulk-${RUN}.txt`, mimeType: "text/plain", buffer: big },
    { name: `picked-${RUN}.md`, mimeType: "text/markdown", buffer: makeMarkdown(`Picked file about Quorndon ferries ${RUN}.`, "Picked") },
  ]);
  const bulk = item(page, `bulk-${RUN}.txt`);
  await expect(bulk).toHaveAttribute("data-status", /uploading|processing/);
  await bulk.getByTestId("upload-cancel").click();
  await expect(bulk).toHaveAttribute("data-status", "cancelled");
  await expect(item(page, `picked-${RUN}.md`)).toHaveAttribute("data-status", "done");
  await expect(page.locator(`[data-testid="document-row"][data-source="picked-${RUN}.md"]`)).toBeVisible();
});

test("the library lists documents, searches by name, shows chunks, and deletes", async ({ page }) => {
  await page.goto("/documents");
  const row = page.locator(`[data-testid="document-row"][data-source="${LIGHTHOUSE.name}"]`);
  await expect(row).toBeVisible();
  await expect(row).toContainText(LIGHTHOUSE.title);
  await expect(row).toContainText("Markdown");
  await expect(row.getByTestId("document-chunks")).toHaveText(/^[1-9]\d*$/);

  await page.getByTestId("documents-search").fill("vellichor");
  await expect(page.getByTestId("document-row")).toHaveCount(1);
  await page.getByTestId("documents-search").fill("");

  await row.getByRole("link", { name: LIGHTHOUSE.title }).click();
  await expect(page.getByTestId("document-title")).toHaveText(LIGHTHOUSE.title);
  await expect(page.getByTestId("document-body")).toContainText("automated in 1987");
  await page.goBack();

  await row.getByTestId("document-delete").click();
  await row.getByTestId("document-delete-confirm").click();
  await expect(row).toHaveCount(0);

  const client = await connectMcp(mcpUrl(PORTS.offline));
  try {
    const { results } = await search(client, { query: "Vellichor lighthouse automated" });
    expect(results.filter((r) => r.document.source === LIGHTHOUSE.name)).toEqual([]);
  } finally {
    await client.close();
  }
});
