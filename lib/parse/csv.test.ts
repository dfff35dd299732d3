import { describe, expect, it } from "vitest";
import { CSV_HEADER, CSV_QUESTION, CSV_ROWS, makeCsv } from "@/e2e/fixtures/make-fixtures";
import { CSV_ROWS_PER_GROUP } from "./csv";
import { parseDocument } from "./index";

describe("CSV parser", () => {
  it("writes each row as header: value lines", async () => {
    const doc = await parseDocument("cities.csv", makeCsv());
    expect(doc.mimeType).toBe("text/csv");
    const row = CSV_ROWS.find((r) => (r as readonly string[]).includes(CSV_QUESTION.phrase))!;
    const record = CSV_HEADER.map((h, i) => `${h}: ${row[i]}`).join("\n");
    expect(doc.text).toContain(record);
    expect(doc.text.split("city: ").length - 1).toBe(CSV_ROWS.length);
  });

  it("groups rows under headings, repeating the header in every record", async () => {
    const rows = Array.from({ length: CSV_ROWS_PER_GROUP * 2 + 3 }, (_, i) => `item${i},"quoted, ${i}"`);
    const doc = await parseDocument("items.csv", Buffer.from(`name,note\n${rows.join("\n")}\n`));
    expect(doc.text).toContain(`## Rows 1–${CSV_ROWS_PER_GROUP}`);
    expect(doc.text).toContain(`## Rows ${CSV_ROWS_PER_GROUP * 2 + 1}–${CSV_ROWS_PER_GROUP * 2 + 3}`);
    expect(doc.text).toContain("name: item22\nnote: quoted, 22");
  });

  it("reads GBK-encoded CSV", async () => {
    const iconv = (await import("iconv-lite")).default;
    const doc = await parseDocument("城市.csv", iconv.encode("城市,人口\n北京,2189万\n", "gbk"));
    expect(doc.text).toContain("城市: 北京\n人口: 2189万");
  });
});
