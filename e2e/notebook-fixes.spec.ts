/**
 * Sources you pick and the defects of issue 53, in English and Chinese: the document-scope picker limits the
 * answer's passages to the ticked documents; a citation card's scrolling passage is focusable and named; a
 * broken PDF is not called an unsupported type; documents of a source show their own name, the source, and no
 * Delete/Re-index; a private web source is refused at Add; source kinds are translated; the 1280 px header is
 * one row.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { audit } from "./helpers/axe";
import { ask } from "./helpers/chat";
import { expect, PORTS, test } from "./helpers/servers";

const QUESTION = { en: "How many days of annual leave do full-time employees get?", zh: "年假有多少天？" } as const;
const docOf = (chunkId: string | null) => (chunkId ?? "").replace(/:\d+$/, "");

test.describe.configure({ mode: "serial", timeout: 300_000 });

for (const locale of ["en-US", "zh-CN"] as const) {
  const lang = locale === "zh-CN" ? "zh" : "en";
  test.describe(locale, () => {
    test.use({ locale });

    test("the answer draws only on the documents ticked in the scope picker; the citation card's passage is focusable", async ({
      page,
    }) => {
      await page.goto("/");
      const free = await ask(page, QUESTION[lang]);
      const cited = new Set(await free.getByTestId("source-item").evaluateAll((els) => els.map((e) => e.getAttribute("data-chunk-id"))));
      const top = docOf([...cited][0]);
      expect(top).not.toBe("");
      // The card's passage scrolls: it can be reached by keyboard and has a name (axe scrollable-region-focusable).
      await free.getByTestId("citation-chip").first().click();
      const passage = page.getByTestId("citation-popover").getByTestId("chunk-text");
      await expect(passage).toHaveAttribute("tabindex", "0");
      await expect(passage).toHaveAttribute("aria-label", lang === "zh" ? /^来自《.+》的段落$/ : /^Passage from .+/);
      await audit(page, "citation popover", '[data-testid="citation-popover"]');
      await page.keyboard.press("Escape");

      await page.getByTestId("new-chat").click();
      await page.getByTestId("document-scope").click();
      await expect(page.getByTestId("document-scope-panel")).toBeVisible();
      await audit(page, "scope picker", '[data-testid="document-scope-panel"]');
      const items = page.getByTestId("document-scope-item");
      const ids = await items.evaluateAll((els) => els.map((e) => e.getAttribute("data-id")!));
      const other = ids.find((id) => id !== top && ![...cited].some((c) => docOf(c) === id))!;
      expect(other).toBeTruthy();
      const item = page.locator(`[data-testid="document-scope-item"][data-id="${other}"]`);
      await item.check();
      // The label names the ticked document.
      await expect(page.getByTestId("document-scope-label")).toHaveText(await item.locator("xpath=..").locator("span").first().innerText());
      await page.getByTestId("document-scope").click();
      const scoped = await ask(page, QUESTION[lang]);
      const scopedDocs = await scoped.getByTestId("source-item").evaluateAll((els) => els.map((e) => e.getAttribute("data-chunk-id")));
      expect(scopedDocs.map(docOf).filter((d) => d !== other)).toEqual([]);
      expect(scopedDocs.map(docOf)).not.toContain(top);
    });

    test("a broken PDF is reported as damaged, not as an unsupported type; the drop hint lists the formats", async ({ page }) => {
      await page.goto("/documents");
      await page.getByTestId("add-documents-input").setInputFiles({
        name: `broken-${lang}.pdf`,
        mimeType: "application/pdf",
        buffer: Buffer.from("this is not a PDF at all, just text"),
      });
      const status = page.locator(`[data-testid="upload-item"][data-name="broken-${lang}.pdf"] [data-testid="upload-status"]`);
      await expect(status).toContainText(lang === "zh" ? "内容与扩展名不符" : "has the extension .pdf");
      await expect(status).not.toContainText(lang === "zh" ? "不支持" : "Unsupported");
    });

    test("documents of a source: own name, 'from source' mark, no Delete; kinds translated; a private web source refused at Add", async ({
      page,
    }) => {
      const dir = mkdtempSync(path.join(tmpdir(), "kb-folder-source-"));
      writeFileSync(path.join(dir, `bike-policy-${lang}.md`), "# Bike policy\n\nBikes are parked in the north garage.\n");
      const added = await page.request.post("/api/kbs/default/sources", {
        data: { kind: "folder", path: dir, name: `folder-${lang}`, scheduleMinutes: 0 },
      });
      expect(added.status(), await added.text()).toBe(201);
      const sourceId = ((await added.json()) as { source: { id: string } }).source.id;
      try {
        await expect
          .poll(async () => {
            const r = (await (await page.request.get("/api/documents")).json()) as { documents: { source: string; sourceName?: string }[] };
            return r.documents.find((d) => d.source.startsWith(`bike-policy-${lang} (`))?.sourceName ?? null;
          })
          .toBe(`folder-${lang}`);
        await page.goto("/documents");
        const row = page.locator(`[data-testid="document-row"][data-source^="bike-policy-${lang} ("]`).first();
        await expect(row).toContainText(`bike-policy-${lang}.md`);
        await expect(row).not.toContainText(`bike-policy-${lang} (`);
        await expect(row.getByTestId("from-source")).toHaveText(lang === "zh" ? `来自数据源 folder-${lang}` : `from source folder-${lang}`);
        await expect(row.getByTestId("document-delete")).toHaveCount(0);

        await page.goto("/kbs");
        const label = page.locator(`[data-testid="source"][data-kind="folder"] [data-testid="source-kind-label"]`).first();
        await expect(label).toHaveText(lang === "zh" ? "服务器文件夹" : "Server folder");

        const refused = await page.request.post("/api/kbs/default/sources", {
          data: { kind: "web", url: "http://10.20.30.40/docs/", mode: "page" },
        });
        expect(refused.status()).toBe(400);
        expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/not a public address/);
      } finally {
        await page.request.delete(`/api/kbs/default/sources/${sourceId}`);
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}

test("the 1280 px header with a model badge and the knowledge-base filter is one row; an admin is offered Promote to FAQ", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`http://127.0.0.1:${PORTS.llm}/`);
  const header = page.getByTestId("chat-header");
  await expect(header).toContainText("fake-model");
  const tops = await header
    .locator(":scope > *:visible, nav > *:visible")
    .evaluateAll((els) => els.map((e) => e.getBoundingClientRect()).map((r) => Math.round(r.top + r.height / 2)));
  expect(Math.max(...tops) - Math.min(...tops)).toBeLessThan(12);

  await page.goto("/");
  const answer = await ask(page, QUESTION.en);
  await expect(answer.getByTestId("promote-faq")).toBeVisible();
});
