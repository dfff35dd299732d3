import { describe, expect, it } from "vitest";
import { makeCorruptPdf, makePdf, makeTextlessPdf, PDF_PAGES, PDF_PHRASES } from "@/e2e/fixtures/make-fixtures";
import { sentenceRanges } from "@/lib/text/sentences";
import { DEFAULT_PARSE_LIMITS, parseDocument } from "./index";

/** Page on which a character offset lies, from ParsedDocument.pages. */
function pageAt(pages: { page: number; start: number }[], offset: number): number {
  return pages.filter((p) => p.start <= offset).at(-1)!.page;
}

describe("PDF parser", () => {
  it("keeps the text of every page and where each page starts", async () => {
    const doc = await parseDocument("report.pdf", await makePdf());
    expect(doc.mimeType).toBe("application/pdf");
    expect(doc.title).toBe("Turbine maintenance report");
    expect(doc.pages?.map((p) => p.page)).toEqual([1, 2, 3]);
    for (const [phrase, page] of Object.entries(PDF_PHRASES)) {
      const at = doc.text.indexOf(phrase);
      expect(at, phrase).toBeGreaterThanOrEqual(0);
      expect(pageAt(doc.pages!, at)).toBe(page);
    }
    // each page's text starts exactly at its recorded offset
    for (const p of doc.pages!) {
      expect(doc.text.slice(p.start)).toMatch(new RegExp(`^${PDF_PAGES[p.page - 1].split(" ")[0]}`));
    }
  });

  it("joins the lines a sentence was wrapped over, and keeps headings, list items and paragraph ends on lines of their own", async () => {
    const doc = await parseDocument(
      "wrapped.pdf",
      await makePdf([
        [
          "Inspection schedule",
          "The vibration dampers on unit seven were replaced after the Quillfeather anomaly was logged by the night crew on duty.",
          "- first item of a list that is long enough to reach the right margin of the page here",
          "- second item",
        ].join("\n"),
      ]),
    );
    const sentence =
      "The vibration dampers on unit seven were replaced after the Quillfeather anomaly was logged by the night crew on duty.";
    // The sentence drawn over two lines is one sentence of the text.
    const sentences = sentenceRanges(doc.text).map(([s, e]) => doc.text.slice(s, e).trim());
    expect(sentences).toContain(sentence);
    expect(doc.text).toBe(
      `Inspection schedule\n${sentence}\n- first item of a list that is long enough to reach the right margin of the page here\n- second item`,
    );
  });

  it("skips empty pages without shifting the page numbers of the others", async () => {
    const doc = await parseDocument("gaps.pdf", await makePdf(["First page words", "", "Third page words"]));
    expect(doc.pages).toEqual([
      { page: 1, start: 0 },
      { page: 3, start: doc.text.indexOf("Third") },
    ]);
  });

  it("refuses a PDF without a text layer nor a scanned page (drawings only) with a clear message", async () => {
    await expect(parseDocument("drawing.pdf", await makeTextlessPdf())).rejects.toThrow("this PDF has no text layer and no scanned page");
  });

  it("refuses a corrupt PDF", async () => {
    await expect(parseDocument("broken.pdf", makeCorruptPdf())).rejects.toMatchObject({
      code: "parse_failed",
      message: expect.stringContaining("corrupt"),
    });
  });

  it("refuses a PDF over the page limit before reading it", async () => {
    const pdf = await makePdf(["a", "b", "c", "d"]);
    await expect(parseDocument("long.pdf", pdf, { limits: { maxPdfPages: 3 } })).rejects.toMatchObject({
      code: "too_large",
      message: expect.stringContaining("4 pages"),
    });
  });

  it("refuses a PDF over the default page limit without reading its pages", async () => {
    const { PDFDocument } = await import("pdf-lib");
    const doc = await PDFDocument.create();
    for (let i = 0; i < DEFAULT_PARSE_LIMITS.maxPdfPages + 1; i++) doc.addPage([10, 10]);
    await expect(parseDocument("huge.pdf", Buffer.from(await doc.save()))).rejects.toMatchObject({
      code: "too_large",
      message: expect.stringContaining(`${DEFAULT_PARSE_LIMITS.maxPdfPages + 1} pages`),
    });
  });

  it("refuses a .pdf whose content is not a PDF", async () => {
    await expect(parseDocument("fake.pdf", Buffer.from("just some text"))).rejects.toMatchObject({
      code: "unsupported_type",
    });
  });
});
