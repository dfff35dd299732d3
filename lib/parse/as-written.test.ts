/**
 * Office files and mail read as their authors wrote them, made at test time by the producers people use (ExcelJS,
 * pptxgenjs, docx, a raw RFC 822 message): sheet cells as shown, slide titles, charts and lists, Word footnotes and
 * characters without Markdown escapes, a mail's date in its sender's time. LibreOffice's own values for the same
 * workbook, and the same Word document saved as ODT, are checked in ./libreoffice.test.ts.
 */
import { describe, expect, it } from "vitest";
import { LEDGER, makeLedgerXlsx, makePolicyDocx, makeRoutesPptx, POLICY, ROUTES } from "@/e2e/fixtures/make-edges";
import { parseDocumentHere } from "./index";

describe("files read as written", () => {
  it("XLSX: a time of day as a time, an escaped literal in a format as text, ROUND in decimal and EDATE/EOMONTH to the month's end", async () => {
    const doc = await parseDocumentHere("ledger.xlsx", await makeLedgerXlsx());
    LEDGER.shown.forEach((record, i) => {
      const fields = Object.entries(record).map(([k, v]) => `${k}: ${v}`);
      expect(doc.text).toContain(`# ${LEDGER.sheet}, row ${i + 2}\n\n${fields.join("\n")}\n`);
    });
    expect(doc.text).toContain(`Net: Total\nGross: ${LEDGER.total}`);
    expect(doc.text).not.toMatch(/1899-12-30|not computed/);
  });

  it("PPTX: the title a text box, a chart as a table of its series, nested bullets and numbering kept", async () => {
    const doc = await parseDocumentHere("routes.pptx", await makeRoutesPptx());
    expect(doc.text.match(/^# .*/gm)).toEqual([`# Slide 1 — ${ROUTES.title}`, "# Slide 2 — How to book"]);
    const { chart } = ROUTES;
    const rows = chart.categories.map((c, r) => `| ${c} | ${chart.values.map((v) => v[r]).join(" | ")} |`);
    expect(doc.text).toContain(`Chart: ${chart.title}\n\n|  | ${chart.series.join(" | ")} |\n| --- | --- | --- |\n${rows.join("\n")}`);
    expect(doc.text).toContain("- Europe\n    - Rail to Gdansk\n- Asia");
    expect(doc.text).toContain("1. Ask the desk\n2. Book the slot\n3. Confirm by mail");
    // The chart sits in its slide's section.
    expect(doc.text.indexOf(chart.title)).toBeLessThan(doc.text.indexOf("# Slide 2"));
  });

  it("DOCX: a footnote where it is referenced, no Markdown escapes or note links in the text", async () => {
    const doc = await parseDocumentHere("policy.docx", await makePolicyDocx());
    expect(doc.text).toContain(`${POLICY.sentence} [Footnote 1: ${POLICY.footnote}] Keep the tickets.`);
    expect(doc.text).toContain(`Attach ${POLICY.file} to the claim.`);
    expect(doc.text).not.toMatch(/\\[_[\]]|#footnote|↑/);
    expect(doc.text.split(POLICY.footnote)).toHaveLength(2);
  });

  it("EML: the date in the sender's time with its offset, as the Date header writes it", async () => {
    const mail = (date: string) =>
      Buffer.from(["From: Desk <desk@harbour.example>", "Subject: Slots", `Date: ${date}`, "", "Two slots left.", ""].join("\r\n"));
    const dated = async (date: string) => (await parseDocumentHere("slots.eml", mail(date))).text.match(/^date: (.*)$/m)?.[1];
    expect(await dated("Tue, 03 Mar 2026 09:30:00 +0100")).toBe("2026-03-03T09:30:00+01:00");
    expect(await dated("Mon, 2 Mar 2026 22:15:00 -0500 (EST)")).toBe("2026-03-02T22:15:00-05:00");
    expect(await dated("Mon, 2 Mar 2026 22:15:00 GMT")).toBe("2026-03-02T22:15:00+00:00");
  });
});
