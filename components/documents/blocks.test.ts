import { describe, expect, it } from "vitest";
import { documentBlocks, splitBlocks } from "./blocks";

describe("document blocks", () => {
  it("splits Markdown at blank lines, keeps code fences whole and headings apart, with exact offsets", () => {
    const text = "# Title\nIntro line\n\n```\na\n\nb\n```\n\nPara one\ncontinues";
    const blocks = splitBlocks(text).map((b) => text.slice(b.start, b.end));
    expect(blocks).toEqual(["# Title", "Intro line", "```\na\n\nb\n```", "Para one\ncontinues"]);
  });

  it("reads CSV records back into fields", () => {
    const text = "# people\n\n## Rows 1–2\n\nname: Ada\nrole: engineer\n\nname: Bo\nrole: chef";
    const recs = documentBlocks(text, "text/csv").filter((b) => b.kind === "record");
    expect(recs.map((r) => r.fields)).toEqual([
      [
        ["name", "Ada"],
        ["role", "engineer"],
      ],
      [
        ["name", "Bo"],
        ["role", "chef"],
      ],
    ]);
  });

  it("draws a sheet's records as one table, each with its row, without their row headings", () => {
    const text =
      "# Sheet: Inventory\n\nStock on hand — week 41\n\n# Inventory, row 4\n\nSKU: A\nItem: Hinge\n\n# Inventory, row 5\n\nSKU: B";
    const blocks = documentBlocks(text, "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet");
    expect(blocks.map((b) => [b.kind, b.row ?? b.text])).toEqual([
      ["markdown", "# Sheet: Inventory"],
      ["markdown", "Stock on hand — week 41"],
      ["record", 4],
      ["record", 5],
    ]);
  });

  it("puts each PDF paragraph on its page", () => {
    const text = "Page one text.\n\nPage two text.";
    const blocks = documentBlocks(text, "application/pdf", [
      { page: 1, start: 0 },
      { page: 2, start: 16 },
    ]);
    expect(blocks.map((b) => [b.text, b.page])).toEqual([
      ["Page one text.", 1],
      ["Page two text.", 2],
    ]);
  });

  it("reads a spreadsheet's sheets as records, and puts an image's OCR text on its pages", () => {
    const sheet = "# Sheet: Depots\n\n## Rows 2–3\n\ndepot: Gdansk\nmanager: Piotr";
    const xlsx = documentBlocks(sheet, "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet");
    expect(xlsx.filter((b) => b.kind === "record").map((r) => r.fields)).toEqual([
      [
        ["depot", "Gdansk"],
        ["manager", "Piotr"],
      ],
    ]);
    const ods = documentBlocks(sheet, "application/vnd.oasis.opendocument.spreadsheet");
    expect(ods.filter((b) => b.kind === "record")).toHaveLength(1);
    const scan = documentBlocks("First page.\n\nSecond page.", "image/tiff", [
      { page: 1, start: 0 },
      { page: 2, start: 13 },
    ]);
    expect(scan.map((b) => b.page)).toEqual([1, 2]);
  });
});
