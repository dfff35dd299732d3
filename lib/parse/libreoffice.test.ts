/**
 * Files written by LibreOffice (Debian's libreoffice-calc-nogui and libreoffice-impress-nogui): the ExcelJS workbook
 * and the pptxgenjs deck saved again as ODS and ODP, so formulas carry LibreOffice's own results and the
 * structure is LibreOffice's. Skipped, saying so, where `soffice` is not installed.
 */
import { execFile, execFileSync } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { INVENTORY, LEAD_TIMES, makeInventoryXlsx, makeLeadTimesPptx, QUARTERLY } from "@/e2e/fixtures/make-structured";
import { tempDirs } from "@/lib/test-helpers/temp-dirs";
import { parseDocumentHere } from "./index";

const soffice = (() => {
  try {
    return execFileSync("sh", ["-c", "command -v soffice"], { encoding: "utf8" }).trim() || null;
  } catch {
    return null;
  }
})();
if (!soffice)
  console.warn(
    "lib/parse/libreoffice.test.ts skipped: soffice is not installed (apt-get install libreoffice-calc-nogui libreoffice-impress-nogui)",
  );

const tempDir = tempDirs("libreoffice-test-");
const run = promisify(execFile);

/** Saves `data` (named `name`) as `format` with LibreOffice, in a profile of its own so runs never share one. */
async function convert(name: string, data: Buffer, format: string): Promise<Buffer> {
  const dir = await tempDir();
  await mkdir(path.join(dir, "out"));
  await writeFile(path.join(dir, name), data);
  const profile = `file://${path.join(dir, "profile")}`;
  await run(
    soffice!,
    [`-env:UserInstallation=${profile}`, "--headless", "--convert-to", format, "--outdir", path.join(dir, "out"), path.join(dir, name)],
    {
      timeout: 240_000,
    },
  );
  return readFile(path.join(dir, "out", name.replace(/\.[^.]+$/, `.${format}`)));
}

describe.skipIf(!soffice)("files saved by LibreOffice", () => {
  it("ODS keeps the sheet structure (title row, two-row header, ISO dates, formats, formula results); ODP keeps slide tables and titles", {
    timeout: 300_000,
  }, async () => {
    const [ods, odp] = await Promise.all([
      convert("stock.xlsx", await makeInventoryXlsx(), "ods"),
      convert("review.pptx", await makeLeadTimesPptx(), "odp"),
    ]);
    const sheet = await parseDocumentHere("stock.ods", ods);
    expect(sheet.text).toMatch(new RegExp(`^# Sheet: ${INVENTORY.sheet}\\n\\n${INVENTORY.title}\\n\\n# ${INVENTORY.sheet}, row 4\\n`));
    const record = sheet.text.split(`# ${INVENTORY.sheet}, row ${INVENTORY.row}\n\n`)[1]?.split("\n\n")[0];
    expect(record).toBe(
      [`SKU: ${INVENTORY.sku}`, `Item: ${INVENTORY.item}`, ...Object.entries(INVENTORY.shown).map(([k, v]) => `${k}: ${v}`)].join("\n"),
    );
    expect(sheet.text).toContain(
      `# ${QUARTERLY.sheet}, row 3\n\n${QUARTERLY.header.map((h, i) => `${h}: ${QUARTERLY.north[i]}`).join("\n")}`,
    );

    // ODP: the slide table is a table, the section named by the slide's title, no page-number field as notes.
    const deck = await parseDocumentHere("review.odp", odp);
    expect(deck.text.match(/^# .*/gm)).toEqual(["# Slide 1 — Logistics review", `# Slide 2 — ${LEAD_TIMES.title}`]);
    expect(deck.text).toContain(
      `| ${LEAD_TIMES.header.join(" | ")} |\n| --- | --- | --- |\n| Rotterdam | 9 | 95.1% |\n| Gdansk | 17 | 88.6% |`,
    );
    expect(deck.text).not.toContain("<number>");
  });
});
