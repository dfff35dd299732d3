import { afterAll, describe, expect, it } from "vitest";
import { makeDocx } from "@/e2e/fixtures/make-fixtures";
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
  ODT_PHRASES,
  SHEET,
  SHEET_QUESTION,
  SLIDE_PHRASES,
  SLIDES,
} from "@/e2e/fixtures/make-formats";
import { indexedChunks } from "@/lib/chunk/indexed";
import { detectFormat, parseDocument, parseDocumentHere } from "./index";
import { closeParsePool } from "./pool";

afterAll(closeParsePool);

const pageAt = (pages: { page: number; start: number }[], offset: number) => pages.filter((p) => p.start <= offset).at(-1)!.page;

describe("slides (PPTX, ODP)", () => {
  for (const [name, make, mime] of [
    ["deck.pptx", makePptx, "application/vnd.openxmlformats-officedocument.presentationml.presentation"],
    ["deck.odp", makeOdp, "application/vnd.oasis.opendocument.presentation"],
  ] as const) {
    it(`${name}: one section per slide in presentation order, titles as headings, notes under them, slide numbers as pages`, async () => {
      const doc = await parseDocumentHere(name, await make());
      expect(doc.mimeType).toBe(mime);
      expect(doc.title).toBe("Harbour lighting review");
      expect(doc.text.match(/^# .*/gm)).toEqual(SLIDES.map((s, i) => `# Slide ${i + 1} — ${s.title}`));
      expect(doc.pages?.map((p) => p.page)).toEqual([1, 2, 3]);
      for (const [phrase, slide] of Object.entries(SLIDE_PHRASES)) expect(pageAt(doc.pages!, doc.text.indexOf(phrase)), phrase).toBe(slide);
      // Notes are a section of their slide; the notes page's slide number placeholder is not text.
      expect(doc.text).toMatch(/# Slide 2 — Lantern supplier[\s\S]*## Notes\n\nMention that the Quarrydove/);
      expect(doc.text).not.toContain("99");
      const chunk = indexedChunks(doc.text, { size: 400, overlap: 0, pages: doc.pages }).find((c) => c.text.includes("Quarrydove"))!;
      expect(chunk.page).toBe(2);
      expect(chunk.headingPath).toEqual(["Slide 2 — Lantern supplier", "Notes"]);
    });
  }
});

describe("sheets (XLSX, ODS)", () => {
  for (const [name, make] of [
    ["depots.xlsx", makeXlsx],
    ["depots.ods", makeOds],
  ] as const) {
    it(`${name}: each sheet a table, its first row the header, each record under its sheet and row`, async () => {
      const doc = await parseDocumentHere(name, await make());
      expect(doc.title).toBe("Depot register");
      expect(doc.text).toContain(`# Sheet: ${SHEET.name}\n\n# ${SHEET.name}, row 2\n\ndepot: Rotterdam\nmanager: Ineke Vos\nforklifts: 12`);
      const record = doc.text.split("\n\n").find((b) => b.includes(SHEET_QUESTION.phrase));
      expect(record).toBe(`depot: ${SHEET_QUESTION.depot}\nmanager: ${SHEET_QUESTION.phrase}\nforklifts: 7`);
      if (name.endsWith(".xlsx"))
        expect(doc.text).toContain("# Sheet: Contacts\n\n# Contacts, row 2\n\nname: Switchboard\nphone: +31 10 555 0100");
      // The ODS repeats an empty row a million times and an empty cell 16,384 times: none becomes text.
      expect(doc.text.length).toBeLessThan(1000);
    });
  }
});

describe("ODT and EPUB", () => {
  it("ODT: outline levels become headings, spaces written as text:s kept", async () => {
    const doc = await parseDocumentHere("dock.odt", await makeOdt());
    expect(doc.mimeType).toBe("application/vnd.oasis.opendocument.text");
    expect(doc.title).toBe("Dock safety");
    expect(doc.text).toContain(`# ${ODT_PHRASES.heading}`);
    expect(doc.text).toContain(`## ${ODT_PHRASES.sub}\n\n${ODT_PHRASES.body}`);
    expect(doc.text).toContain("- Wear a life vest");
  });

  it("EPUB: chapters in spine order as Markdown, title and author from the package", async () => {
    const doc = await parseDocumentHere("saltmere.epub", await makeEpub());
    expect(doc).toMatchObject({ title: EPUB_PHRASES.title, author: "Marta Lindqvist", mimeType: "application/epub+zip" });
    expect(doc.text.match(/^# .*/gm)).toEqual(["# Chapter One: Arrival", `# ${EPUB_PHRASES.chapter2}`]);
    expect(doc.text).toContain(EPUB_PHRASES.body);
    expect(doc.text).not.toContain("font-family");
  });
});

describe("EML", () => {
  it("subject, sender, recipients and date as front matter, the body, and the attached CSV parsed as a document (in the worker)", async () => {
    const doc = await parseDocument("ferry.eml", makeEml());
    expect(doc).toMatchObject({ title: EML_PHRASES.subject, author: "Harbour Office", mimeType: "message/rfc822" });
    expect(
      doc.text.startsWith(
        `---\nsubject: "${EML_PHRASES.subject}"\nfrom: "${EML_PHRASES.from}"\nto: "Crew <crew@harbour.example>"\ndate: 2026-03-03T09:30:00+01:00\n---`,
      ),
    ).toBe(true);
    expect(doc.text).toContain(`# ${EML_PHRASES.subject}`);
    expect(doc.text).toContain(EML_PHRASES.body);
    // The CSV attachment as the CSV parser writes it, one level down under its name; the inline logo is no attachment.
    expect(doc.text).toContain(`# Attachment: ${EML_PHRASES.attachment}\n\n## timetable\n\n### Rows 1–2`);
    expect(doc.text).toContain(`stop: ${EML_PHRASES.attachmentCell}\ndeparture: 08:05`);
    expect(doc.text).not.toContain("logo.png");
  });

  it("refuses a text file named .eml that is no e-mail", async () => {
    await expect(parseDocumentHere("note.eml", Buffer.from("just a note\n"))).rejects.toMatchObject({ code: "parse_failed" });
  });
});

describe("format check", () => {
  it("refuses an office file whose archive is another format, naming what it is", async () => {
    await expect(parseDocumentHere("deck.pptx", await makeXlsx())).rejects.toMatchObject({
      code: "parse_failed",
      message: expect.stringContaining("not a PowerPoint presentation"),
    });
    await expect(parseDocumentHere("sheet.xlsx", await makeDocx())).rejects.toMatchObject({ code: "unsupported_type" });
    await expect(parseDocumentHere("book.epub", await makePptx())).rejects.toMatchObject({
      message: expect.stringContaining("not an EPUB"),
    });
    expect(() => detectFormat("deck.pptx", Buffer.from("plain text"))).toThrow(/content is text, not PowerPoint/);
  });

  it("refuses an archive that inflates beyond the limit (decompression bomb) before any parser reads it", async () => {
    const { default: JSZip } = await import("jszip");
    const zip = new JSZip();
    zip.file("ppt/presentation.xml", `<p:presentation>${" ".repeat(2_000_000)}</p:presentation>`);
    const data = await zip.generateAsync({ type: "nodebuffer", compression: "DEFLATE" });
    for (const name of ["bomb.pptx", "bomb.xlsx", "bomb.odp", "bomb.epub"]) {
      await expect(parseDocumentHere(name, data, { limits: { maxDocxRatio: 100 } }), name).rejects.toMatchObject({ code: "too_large" });
    }
  });
});
