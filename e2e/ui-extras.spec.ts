/**
 * The upload tray (newest batch on top, summary, collapse, retry), Chinese upload errors, the Connect
 * dialog (address note, focus trap, another token), and phone-sized pages without sideways scrolling.
 */
import type { Page } from "@playwright/test";
import { makeCorruptPdf, makeMarkdown } from "./fixtures/make-fixtures";
import { expect, test } from "./helpers/servers";

const RUN = Date.now().toString(36);
const uploadedIds: string[] = [];

test.afterAll(async ({ request }) => {
  const { documents } = await (await request.get("/api/documents")).json();
  for (const d of documents as { id: string; source: string }[]) if (d.source.includes(RUN)) await request.delete(`/api/documents/${d.id}`);
  for (const id of uploadedIds) await request.delete(`/api/documents/${id}`);
});

async function pickFiles(page: Page, files: { name: string; data: Buffer; mimeType: string }[]) {
  const chooser = page.waitForEvent("filechooser");
  await page.getByTestId("add-documents").click();
  await (await chooser).setFiles(files.map((f) => ({ name: f.name, mimeType: f.mimeType, buffer: f.data })));
}

test.describe("upload tray", () => {
  test.use({ locale: "en-US" });

  test("summarizes, shows the newest batch on top, collapses, and retries a failed file", async ({ page }) => {
    await page.goto("/documents");
    await pickFiles(page, [
      { name: `tray-a-${RUN}.md`, data: makeMarkdown(`Tray test alpha ${RUN}.`, "Tray alpha"), mimeType: "text/markdown" },
      { name: `broken-${RUN}.pdf`, data: makeCorruptPdf(), mimeType: "application/pdf" },
    ]);
    const tray = page.getByTestId("upload-tray");
    await expect(tray.getByTestId("upload-summary")).toHaveText("1 added, 1 failed");

    await pickFiles(page, [
      { name: `tray-b-${RUN}.md`, data: makeMarkdown(`Tray test beta ${RUN}.`, "Tray beta"), mimeType: "text/markdown" },
    ]);
    await expect(tray.getByTestId("upload-item").first()).toHaveAttribute("data-name", `tray-b-${RUN}.md`);
    await expect(tray.getByTestId("upload-summary")).toHaveText("2 added, 1 failed");

    // Retry uploads the failed file again.
    let posts = 0;
    page.on("request", (r) => r.method() === "POST" && r.url().endsWith("/api/documents") && posts++);
    const failed = tray.locator(`[data-testid="upload-item"][data-name="broken-${RUN}.pdf"]`);
    await failed.getByTestId("upload-retry").click();
    await expect.poll(() => posts).toBe(1);
    await expect(failed).toHaveAttribute("data-status", "failed");
    await expect(tray.getByTestId("upload-summary")).toHaveText("2 added, 1 failed");

    // Collapsed, the tray is its header alone; a new batch opens it again.
    await tray.getByTestId("upload-tray-toggle").click();
    await expect(tray.getByTestId("upload-item")).toHaveCount(0);
    await expect(tray.getByTestId("upload-summary")).toBeVisible();
    await pickFiles(page, [
      { name: `tray-c-${RUN}.md`, data: makeMarkdown(`Tray test gamma ${RUN}.`, "Tray gamma"), mimeType: "text/markdown" },
    ]);
    await expect(tray.getByTestId("upload-item").first()).toHaveAttribute("data-name", `tray-c-${RUN}.md`);
  });

  test("an unsupported file is refused in the browser, with the server's message, no request and no Retry", async ({ page }) => {
    await page.goto("/documents");
    await expect(page.getByTestId("drop-anywhere")).toContainText("Drop files anywhere");
    let posts = 0;
    page.on("request", (r) => r.method() === "POST" && r.url().includes("/api/documents") && posts++);
    const layout = await page.getByTestId("documents-table").boundingBox();
    await pickFiles(page, [
      { name: `picture-${RUN}.gif`, data: Buffer.from("GIF89a", "latin1"), mimeType: "image/gif" },
      { name: `setup-${RUN}.exe`, data: Buffer.from("MZ"), mimeType: "application/octet-stream" },
    ]);
    const tray = page.getByTestId("upload-tray");
    await expect(tray.getByTestId("upload-summary")).toHaveText("2 failed");
    const gif = tray.locator(`[data-testid="upload-item"][data-name="picture-${RUN}.gif"]`);
    await expect(gif).toHaveAttribute("data-status", "failed");
    await expect(gif).toContainText(`Unsupported file type ".gif" for "picture-${RUN}.gif". Supported: .pdf`);
    await expect(tray.getByTestId("upload-retry")).toHaveCount(0);
    expect(posts).toBe(0);
    // The server says the same of the same file.
    const res = await page.request.post("/api/documents", {
      multipart: { files: { name: `picture-${RUN}.gif`, mimeType: "image/gif", buffer: Buffer.from("GIF89a", "latin1") } },
    });
    const refused = `Unsupported file type ".gif" for "picture-${RUN}.gif". Supported: .pdf`;
    expect(await res.text()).toContain(JSON.stringify(refused).slice(1, -1));
    expect(posts).toBe(0);
    // Failed rows keep the table's width.
    expect((await page.getByTestId("documents-table").boundingBox())?.width).toBe(layout?.width);
  });
});

test.describe("in Chinese", () => {
  test.use({ locale: "zh-CN" });

  test("upload errors are in Chinese", async ({ page }) => {
    await page.goto("/documents");
    await expect(page.locator("html")).toHaveAttribute("lang", "zh-CN");
    await pickFiles(page, [{ name: `坏文件-${RUN}.pdf`, data: makeCorruptPdf(), mimeType: "application/pdf" }]);
    const status = page.locator(`[data-testid="upload-item"][data-name="坏文件-${RUN}.pdf"]`).getByTestId("upload-status");
    await expect(status).toContainText("失败");
    await expect(status).toContainText(`坏文件-${RUN}.pdf`);
    expect(await status.innerText()).not.toMatch(/could not|cannot|failed|error/i);
  });
});

test.describe("Connect dialog", () => {
  test.use({ locale: "en-US" });

  test("says the loopback address works only here, keeps focus inside, and can create another token", async ({ page }) => {
    await page.goto("/");
    await page.getByTestId("connect-open").click();
    const dialog = page.getByTestId("connect-dialog");
    await expect(dialog).toBeVisible();
    await expect(dialog.getByTestId("share-note")).toContainText("only on this computer");
    await expect(dialog.getByTestId("share-note")).toContainText("BIND_HOST=0.0.0.0");
    for (let i = 0; i < 25; i++) {
      await page.keyboard.press(i % 5 === 4 ? "Shift+Tab" : "Tab");
      expect(await page.evaluate(() => !!document.activeElement?.closest('[data-testid="connect-dialog"]'))).toBe(true);
    }
    await dialog.getByTestId("token-name").fill(`first ${RUN}`);
    await dialog.getByTestId("create-token").click();
    await expect(dialog.getByTestId("token-secret")).toBeVisible();
    await dialog.getByTestId("create-another-token").click();
    await dialog.getByTestId("token-name").fill(`second ${RUN}`);
    await dialog.getByTestId("create-token").click();
    await expect(dialog.getByTestId("token-secret")).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
    await expect(page.getByTestId("connect-open")).toBeFocused();
  });
});

test.describe("phone-sized screen (390×844)", () => {
  test.use({ locale: "en-US", viewport: { width: 390, height: 844 } });

  test("no page scrolls sideways; the chat header stays compact; the citation sheet leaves the answer visible", async ({
    page,
    request,
  }) => {
    const noSideways = async (what: string) => {
      const [scroll, inner] = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
      expect(scroll, `${what} scrolls sideways`).toBeLessThanOrEqual(inner);
    };
    await page.goto("/");
    await expect(page.getByTestId("example-question").first()).toBeVisible();
    await noSideways("chat");
    const header = await page.locator("header").first().boundingBox();
    expect(header!.height).toBeLessThanOrEqual(80);

    await page.getByTestId("chat-input").fill("How many days of annual leave do full-time employees get?");
    await page.getByTestId("chat-input").press("Enter");
    const answer = page.getByTestId("assistant-message").last();
    await expect(answer.getByTestId("copy-answer")).toBeVisible();
    await noSideways("answered chat");
    const chip = answer.getByTestId("citation-chip").first();
    await chip.click();
    const sheet = await page.getByTestId("citation-popover").boundingBox();
    const chipBox = await chip.boundingBox();
    expect(chipBox!.y + chipBox!.height).toBeLessThanOrEqual(sheet!.y);

    await page.goto("/documents");
    await expect(page.getByTestId("document-row").first()).toBeVisible();
    await noSideways("documents");
    await expect(page.getByTestId("document-delete").first()).toBeInViewport();

    const { documents } = await (await request.get("/api/documents")).json();
    const { chunks } = await (await request.get(`/api/documents/${documents[0].id}`)).json();
    await page.goto(`/documents/${documents[0].id}?chunk=${chunks.at(-1).id}`);
    await expect(page.locator('[data-highlighted="true"]').first()).toBeInViewport();
    await noSideways("document view");

    await page.goto("/kbs");
    await expect(page.locator("main")).toBeVisible();
    await noSideways("knowledge bases");
  });
});
