import JSZip from "jszip";
import { describe, expect, it } from "vitest";
import { DOCX_PHRASES, makeDocx } from "@/e2e/fixtures/make-fixtures";
import { parseDocument } from "./index";

describe("DOCX parser", () => {
  it("turns Word headings into Markdown headings and keeps tables as text rows", async () => {
    const doc = await parseDocument("handbook.docx", await makeDocx());
    expect(doc.mimeType).toContain("wordprocessingml");
    expect(doc.title).toBe(DOCX_PHRASES.heading);
    expect(doc.text).toMatch(new RegExp(`^# ${DOCX_PHRASES.heading}$`, "m"));
    expect(doc.text).toMatch(new RegExp(`^## ${DOCX_PHRASES.subheading}$`, "m"));
    expect(doc.text).toContain(DOCX_PHRASES.body);
    expect(doc.text).toContain("| Item | Budget | Vendor |");
    expect(doc.text).toContain(`| Monitor | 300 | ${DOCX_PHRASES.tableCell} |`);
    // the table sits under the heading it belongs to
    expect(doc.text.indexOf("| Item")).toBeGreaterThan(doc.text.indexOf(DOCX_PHRASES.subheading));
  });

  it("refuses a decompression bomb before converting it", async () => {
    const docx = await JSZip.loadAsync(await makeDocx());
    // ~20 MB of one repeated character compresses a thousandfold
    docx.file("word/document.xml", `<?xml version="1.0"?><w:document>${" ".repeat(20 * 1024 * 1024)}</w:document>`);
    const bomb = await docx.generateAsync({ type: "nodebuffer", compression: "DEFLATE" });
    expect(bomb.length).toBeLessThan(1024 * 1024);
    await expect(parseDocument("bomb.docx", bomb)).rejects.toMatchObject({
      code: "too_large",
      message: expect.stringContaining("decompression bomb"),
    });
  });

  it("refuses a DOCX whose XML expands past the size limit", async () => {
    const docx = await makeDocx();
    await expect(parseDocument("big.docx", docx, { limits: { maxDocxUncompressedBytes: 1000 } })).rejects.toMatchObject({
      code: "too_large",
    });
  });

  it("refuses a ZIP that is not a Word document, and a corrupt DOCX", async () => {
    const zip = new JSZip();
    zip.file("hello.txt", "hi");
    const notWord = await zip.generateAsync({ type: "nodebuffer" });
    await expect(parseDocument("x.docx", notWord)).rejects.toThrow(/not a Word document/);
    const corrupt = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.from("word/document.xml"), Buffer.alloc(200, 7)]);
    await expect(parseDocument("y.docx", corrupt)).rejects.toMatchObject({ code: "parse_failed" });
  });
});
