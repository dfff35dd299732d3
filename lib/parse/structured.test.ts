import { Document, HeadingLevel, Packer, Paragraph } from "docx";
import ExcelJS from "exceljs";
import { describe, expect, it } from "vitest";
import {
  AGENDA,
  INVENTORY,
  LEAD_TIMES,
  makeHtmlOnlyEml,
  makeInventoryXlsx,
  makeLeadTimesPptx,
  makeRicherHtmlEml,
  QUARTERLY,
} from "@/e2e/fixtures/make-structured";
import { indexedChunks } from "@/lib/chunk/indexed";
import { parseDocumentHere } from "./index";

const recordAt = (text: string, heading: string) => text.split(`${heading}\n\n`)[1]?.split("\n\n")[0];

describe("sheets keep their structure (XLSX written by ExcelJS)", () => {
  it("skips a merged title row to the real header, shows dates, formats and uncached formulas as the sheet does", async () => {
    const doc = await parseDocumentHere("stock.xlsx", await makeInventoryXlsx());
    // The title is text of the sheet, not every column's name; the real header row is no record.
    expect(doc.text).toMatch(new RegExp(`^# Sheet: ${INVENTORY.sheet}\\n\\n${INVENTORY.title}\\n\\n# ${INVENTORY.sheet}, row 4\\n`));
    expect(doc.text).not.toContain(`${INVENTORY.title}:`);
    expect(doc.text).not.toMatch(/SKU: SKU|Inventory, row 3\n/);
    const record = recordAt(doc.text, `# ${INVENTORY.sheet}, row ${INVENTORY.row}`);
    expect(record).toBe(
      [`SKU: ${INVENTORY.sku}`, `Item: ${INVENTORY.item}`, ...Object.entries(INVENTORY.shown).map(([k, v]) => `${k}: ${v}`)].join("\n"),
    );
    expect(doc.text).not.toMatch(/GMT|Coordinated Universal Time|not computed/);
    // Every row keeps its computed total.
    expect(doc.text.match(/^Total cost: [\d,.]+ €$/gm)).toHaveLength(30);
  });

  it("marks a formula it cannot compute instead of dropping it; an Excel error is shown as the sheet shows it", async () => {
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet("Checks");
    ws.addRow(["name", "value", "ratio"]);
    ws.addRow(["loop", { formula: "B3+1" }, { formula: "B4/0" }]);
    ws.addRow(["unknown", { formula: "NOSUCHFUNCTION(1)+B2" }, { formula: "SUM(B4:B9)*2" }]);
    ws.addRow(["sum", 4, 5]);
    const doc = await parseDocumentHere("checks.xlsx", Buffer.from(await wb.xlsx.writeBuffer()));
    expect(recordAt(doc.text, "# Checks, row 2")).toBe("name: loop\nvalue: =B3+1 (not computed)\nratio: #DIV/0!");
    expect(recordAt(doc.text, "# Checks, row 3")).toBe("name: unknown\nvalue: =NOSUCHFUNCTION(1)+B2 (not computed)\nratio: 8");
  });

  it("joins a two-row header whose group name is merged over the columns below", async () => {
    const doc = await parseDocumentHere("stock.xlsx", await makeInventoryXlsx());
    expect(recordAt(doc.text, `# ${QUARTERLY.sheet}, row 3`)).toBe(
      QUARTERLY.header.map((h, i) => `${h}: ${QUARTERLY.north[i]}`).join("\n"),
    );
  });

  it("cites each record by its sheet and row", async () => {
    const doc = await parseDocumentHere("stock.xlsx", await makeInventoryXlsx());
    const chunk = indexedChunks(doc.text, {}).find((c) => c.text.includes(INVENTORY.item))!;
    expect(chunk.headingPath).toEqual([`${INVENTORY.sheet}, row ${INVENTORY.row}`]);
    expect(chunk.text).not.toContain("INV-1022");
  });
});

describe("slides keep their tables and titles (PPTX written by pptxgenjs)", () => {
  it("a slide table is a Markdown table with its header, the section named by the slide title", async () => {
    const doc = await parseDocumentHere("review.pptx", await makeLeadTimesPptx());
    expect(doc.text.match(/^# .*/gm)).toEqual(["# Slide 1 — Logistics review", `# Slide 2 — ${LEAD_TIMES.title}`]);
    expect(doc.text).toContain(
      [`| ${LEAD_TIMES.header.join(" | ")} |`, "| --- | --- | --- |", ...LEAD_TIMES.rows.map((r) => `| ${r.join(" | ")} |`)].join("\n"),
    );
    const chunk = indexedChunks(doc.text, { pages: doc.pages }).find((c) => c.text.includes("Gdansk"))!;
    expect(chunk.headingPath).toEqual([`Slide 2 — ${LEAD_TIMES.title}`]);
    expect(chunk.page).toBe(2);
  });
});

describe("e-mail keeps its richer body", () => {
  const table = ["| Day | Agenda |", "| --- | --- |", ...AGENDA.rows.map(([d, a]) => `| ${d} | ${a} |`)].join("\n");
  it("HTML-only mail: its table is a table, cells not glued together", async () => {
    const doc = await parseDocumentHere("agenda.eml", makeHtmlOnlyEml());
    expect(doc.text).toContain(table);
    expect(doc.text).not.toContain("AgendaDay");
  });
  it("plain and HTML bodies: the HTML one when it holds more", async () => {
    const doc = await parseDocumentHere("agenda.eml", makeRicherHtmlEml());
    expect(doc.text).toContain(table);
  });
});

describe("DOCX headings", () => {
  it("keep their numbers without Markdown escapes", async () => {
    const docx = new Document({
      sections: [
        {
          children: [
            new Paragraph({ text: "Travel policy", heading: HeadingLevel.HEADING_1 }),
            new Paragraph({ text: "2. Per diem rates", heading: HeadingLevel.HEADING_2 }),
            new Paragraph("2. A paragraph that starts like a list item stays escaped."),
            new Paragraph({ text: "- Dashes", heading: HeadingLevel.HEADING_3 }),
          ],
        },
      ],
    });
    const doc = await parseDocumentHere("travel.docx", await Packer.toBuffer(docx));
    expect(doc.text).toContain("## 2. Per diem rates\n");
    expect(doc.text).toContain("### - Dashes");
    expect(doc.text).toContain("2\\. A paragraph");
    expect(indexedChunks(doc.text, {}).at(-1)!.headingPath).toEqual(["Travel policy", "2. Per diem rates", "- Dashes"]);
  });
});
