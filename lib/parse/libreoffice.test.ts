/**
 * Files written by LibreOffice (Debian's libreoffice-calc-nogui, -impress-nogui and -writer-nogui): the ExcelJS
 * workbooks, the pptxgenjs deck and the docx Word document saved again as ODS, ODP and ODT, so formulas carry
 * LibreOffice's own results and the structure is LibreOffice's. Skipped, saying so, where `soffice` is not installed.
 */
import { execFile, execFileSync } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { LEDGER, makeLedgerXlsx, makePolicyDocx, makeRoutesPptx, POLICY, ROUTES } from "@/e2e/fixtures/make-edges";
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
    "lib/parse/libreoffice.test.ts skipped: soffice is not installed (apt-get install libreoffice-calc-nogui libreoffice-impress-nogui libreoffice-writer-nogui)",
  );

/** Writer (libreoffice-writer-nogui), which saves a Word document as ODT: a library beside soffice's own. */
const writer = !!soffice && existsSync(path.join(path.dirname(realpathSync(soffice)), "libswlo.so"));
if (soffice && !writer)
  console.warn("lib/parse/libreoffice.test.ts: ODT skipped, LibreOffice Writer is not installed (libreoffice-writer-nogui)");

const tempDir = tempDirs("libreoffice-test-");
const run = promisify(execFile);

/** Saves files (name → data) as `format` with LibreOffice in one run, in a profile of its own so runs never share one. */
async function convert(files: Record<string, Buffer>, format: string): Promise<Buffer[]> {
  const dir = await tempDir();
  await mkdir(path.join(dir, "out"));
  const names = Object.keys(files);
  for (const name of names) await writeFile(path.join(dir, name), files[name]);
  const profile = `file://${path.join(dir, "profile")}`;
  const inputs = names.map((n) => path.join(dir, n));
  await run(
    soffice!,
    [`-env:UserInstallation=${profile}`, "--headless", "--convert-to", format, "--outdir", path.join(dir, "out"), ...inputs],
    {
      timeout: 240_000,
    },
  );
  return Promise.all(names.map((name) => readFile(path.join(dir, "out", name.replace(/\.[^.]+$/, `.${format}`)))));
}

/** Every file LibreOffice saves for these tests, converted once (each conversion starts LibreOffice: seconds). */
let saved: { stock: Buffer; ledger: Buffer; review: Buffer; routes: Buffer; policy?: Buffer };
beforeAll(async () => {
  if (!soffice) return;
  const [[stock, ledger], [review, routes], policy] = await Promise.all([
    convert({ "stock.xlsx": await makeInventoryXlsx(), "ledger.xlsx": await makeLedgerXlsx() }, "ods"),
    convert({ "review.pptx": await makeLeadTimesPptx(), "routes.pptx": await makeRoutesPptx() }, "odp"),
    writer ? convert({ "policy.docx": await makePolicyDocx() }, "odt") : Promise.resolve([]),
  ]);
  saved = { stock, ledger, review, routes, policy: policy[0] };
}, 300_000);

describe.skipIf(!soffice)("files saved by LibreOffice", () => {
  it("ODS keeps the sheet structure (title row, two-row header, ISO dates, formats, formula results); ODP keeps slide tables and titles", async () => {
    const { stock: ods, review: odp } = saved;
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

  it("an XLSX cell reads as LibreOffice shows it: times of day, escaped literals in formats, ROUND and EDATE/EOMONTH computed as it computes them", async () => {
    // The workbook's formulas carry no cached results: LibreOffice computes them on loading, the parser on reading.
    const ours = await parseDocumentHere("ledger.xlsx", await makeLedgerXlsx());
    const theirs = await parseDocumentHere("ledger.ods", saved.ledger);
    expect(ours.text).toBe(theirs.text);
    LEDGER.shown.forEach((record, i) => {
      expect(ours.text).toContain(
        `# ${LEDGER.sheet}, row ${i + 2}\n\n${Object.entries(record)
          .map(([k, v]) => `${k}: ${v}`)
          .join("\n")}\n`,
      );
    });
    expect(ours.text).toContain(`Net: Total\nGross: ${LEDGER.total}`);
  });

  it("ODP: the title a large text box at the top, nested bullets and numbering kept", async () => {
    const deck = await parseDocumentHere("routes.odp", saved.routes);
    expect(deck.text.match(/^# .*/gm)).toEqual([`# Slide 1 — ${ROUTES.title}`, "# Slide 2 — How to book"]);
    expect(deck.text).toContain("- Europe\n    - Rail to Gdansk\n- Asia");
    expect(deck.text).toContain("1. Ask the desk\n2. Book the slot\n3. Confirm by mail");
  });

  it.skipIf(!writer)("ODT keeps footnotes where they are referenced, numbered lists numbered, and tables as tables", async () => {
    const doc = await parseDocumentHere("policy.odt", saved.policy!);
    expect(doc.text).toContain(`${POLICY.sentence} [Footnote 1: ${POLICY.footnote}] Keep the tickets.`);
    expect(doc.text).toContain(POLICY.steps.map((s, i) => `${i + 1}. ${s}`).join("\n"));
    expect(doc.text).toContain(`| ${POLICY.table[0].join(" | ")} |\n| --- | --- |\n| ${POLICY.table[1].join(" | ")} |`);
    expect(doc.text).toContain(POLICY.file);
  });
});
