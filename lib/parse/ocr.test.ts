/**
 * OCR of scans made from our own sample documents (knowledge/, English and Chinese), through the real parse and
 * OCR worker pools: character accuracy against the drawn text, page numbers, progress per page, the page limit.
 * Pages are short (12 lines) to keep the run quick.
 */
import { PDFDocument, StandardFonts } from "pdf-lib";
import sharp from "sharp";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import {
  characterAccuracy,
  layoutPages,
  makeMultiPageTiff,
  makeScannedPdf,
  renderDensePage,
  renderPage,
  renderScanLike,
  sampleText,
  wordAccuracy,
} from "@/e2e/fixtures/make-scans";
import { parseDocument } from "./index";
import { closeParsePool, type OcrProgress } from "./pool";

afterAll(closeParsePool);
afterEach(() => {
  delete process.env.OCR_MEMORY_MB;
  delete process.env.OCR_MAX_PAGES;
  delete process.env.OCR_FILE_TIMEOUT_SECONDS;
  delete process.env.OCR_WORKERS;
});

const EN = layoutPages(sampleText("employee-handbook.md"), { linesPerPage: 12, maxPages: 2 });
const ZH = layoutPages(sampleText("员工手册.md"), { linesPerPage: 12, maxPages: 1 });

/** The text of each page of a parsed document, by its page offsets. */
const pageTexts = (doc: { text: string; pages?: { page: number; start: number }[] }) =>
  (doc.pages ?? []).map((p, i, all) => doc.text.slice(p.start, all[i + 1]?.start ?? doc.text.length));

describe("OCR", { timeout: 300_000 }, () => {
  it("reads a scanned English PDF page by page at ≥ 97 % character accuracy, telling each page as it goes", async () => {
    const pdf = await makeScannedPdf(await Promise.all(EN.map(renderPage)));
    const heard: OcrProgress[] = [];
    const doc = await parseDocument("handbook-scan.pdf", pdf, { onOcrPage: (p) => heard.push(p) });
    expect(doc.mimeType).toBe("application/pdf");
    expect(doc.pages?.map((p) => p.page)).toEqual([1, 2]);
    expect(heard.map(({ page, total }) => ({ page, total }))).toEqual([
      { page: 1, total: 2 },
      { page: 2, total: 2 },
    ]);
    const accuracy = pageTexts(doc).map((text, i) => characterAccuracy(EN[i].join("\n"), text));
    console.log(`OCR character accuracy, English pages: ${accuracy.map((a) => `${(a * 100).toFixed(1)} %`).join(", ")}`);
    for (const a of accuracy) expect(a).toBeGreaterThanOrEqual(0.97);
    expect(doc.text).toContain("Lumen Harbor Labs"); // words keep their spaces
  });

  it("reads a Chinese page image (PNG) at ≥ 93 % character accuracy", async () => {
    const doc = await parseDocument("员工手册.png", await renderPage(ZH[0]));
    expect(doc).toMatchObject({ mimeType: "image/png", pages: [{ page: 1, start: 0 }] });
    const accuracy = characterAccuracy(ZH[0].join("\n"), doc.text);
    console.log(`OCR character accuracy, Chinese page: ${(accuracy * 100).toFixed(1)} %`);
    expect(accuracy).toBeGreaterThanOrEqual(0.93);
  });

  it("keeps the word spaces of a scan-like English page (150 dpi, skewed, blurred, grainy JPEG) at ≥ 95 % word accuracy", async () => {
    const lines = EN[0];
    const scan = await renderScanLike(lines, { dpi: 150, angle: 0.8, blur: 0.6, noise: 20, quality: 60, seed: 1 });
    const doc = await parseDocument("handbook-scan.jpg", scan);
    const words = wordAccuracy(lines.join("\n"), doc.text);
    console.log(`OCR word accuracy, scan-like English page: ${(words * 100).toFixed(1)} %`);
    expect(words).toBeGreaterThanOrEqual(0.95);
    expect(doc.text).toContain("This handbook applies to all employees of Lumen Harbor Labs.");
  });

  it("reads a table on a scanned page as rows, its cells separated by |", async () => {
    const rows = [
      ["Permit", "Monthly fee"],
      ["Staff parking", "35 euros"],
      ["Bicycle locker", "8 euros"],
      ["Visitor day pass", "6 euros"],
    ];
    const scan = await renderScanLike(
      rows.map((r) => r.join("\t")),
      { dpi: 300, angle: -0.5, blur: 0.5, noise: 15, quality: 70, seed: 3 },
    );
    const doc = await parseDocument("fees.jpg", scan);
    const expected = ["Permit | Monthly fee", ...rows.slice(1).map(([a, b]) => `Permit: ${a} | Monthly fee: ${b}`)];
    expect(doc.text.split("\n")).toEqual(expected);
    // In a scanned PDF too, where lines that run to the margin are joined as wrapped text (lib/parse/pdf.ts).
    const pdf = await parseDocument("fees.pdf", await makeScannedPdf([await sharp(scan).png().toBuffer()]));
    expect(pdf.text.split("\n")).toEqual(expected);
  });

  it("splits a scanned table's header into its rows' cells though its names sit closer, and names each row's cells", async () => {
    const rows = [
      ["Route", "Carrier", "Transit days", "Cost per pallet"],
      ["Hamburg", "Rhenus", "3", "EUR 276.20"],
      ["Lyon", "Geodis", "5", "EUR 398.75"],
    ];
    // "Transit days" ends a few pixels before "Cost per pallet" starts; the rows' cells are far apart.
    const scan = await renderScanLike(
      rows.map((r) => r.join("\t")),
      { dpi: 150, angle: 0.5, blur: 0.5, noise: 15, quality: 70, seed: 5, tabs: [0, 260, 470, 640] },
    );
    const doc = await parseDocument("routes.jpg", scan);
    expect(doc.text.split("\n")).toEqual([
      "Route | Carrier | Transit days | Cost per pallet",
      "Route: Hamburg | Carrier: Rhenus | Transit days: 3 | Cost per pallet: EUR 276.20",
      "Route: Lyon | Carrier: Geodis | Transit days: 5 | Cost per pallet: EUR 398.75",
    ]);
  });

  it("puts no space inside a number, a section number or a word in capitals (a fixed-width licence)", async () => {
    const lines = [
      "1.1. Purpose of this agreement",
      "1.2. Total due: EUR 276.20 and EUR 398.75",
      "FOR A PARTICULAR PURPOSE ARE DISCLAIMED.",
      "THE BUSINESS INTERRUPTION IS DISCLAIMED.",
    ];
    const scan = await renderScanLike(lines, {
      dpi: 300,
      angle: 0.5,
      blur: 0.5,
      noise: 15,
      quality: 70,
      seed: 5,
      font: "DejaVu Sans Mono",
    });
    const doc = await parseDocument("licence.jpg", scan);
    expect(doc.text.split("\n")).toEqual(lines);
  });

  it("keeps Traditional characters on a Simplified page (read, or the recogniser's best guess), deleting none", async () => {
    const lines = ["东海舰队的艦隊司令领導了行动。", "他們領取了物资，投擲了手雷。", "请输入密码后进入系统。"];
    const scan = await renderScanLike(lines, { dpi: 150, angle: 0.5, blur: 0.5, noise: 15, quality: 70, seed: 5 });
    const doc = await parseDocument("舰队.jpg", scan);
    const han = (s: string) => s.match(/\p{Script=Han}/gu) ?? [];
    const read = doc.text.split("\n");
    expect(read).toHaveLength(lines.length);
    for (const [i, line] of lines.entries()) expect(han(read[i]), line).toHaveLength(han(line).length);
    expect(characterAccuracy(lines.join(""), doc.text)).toBeGreaterThanOrEqual(0.85);
  });

  it("reads a page the same on a worker warm from other pages as on a fresh one", async () => {
    await closeParsePool();
    try {
      const page = await renderScanLike(EN[1], { dpi: 150, angle: 0.3, blur: 0.5, noise: 15, quality: 70, seed: 6 });
      const fresh = (await parseDocument("page.jpg", page)).text;
      await parseDocument("other.jpg", await renderScanLike(ZH[0], { dpi: 300, angle: -1, blur: 0.6, noise: 20, quality: 60, seed: 7 }));
      expect((await parseDocument("page.jpg", page)).text).toBe(fresh);
    } finally {
      await closeParsePool();
    }
  });

  it("reads a scanned page in two columns column by column: the left one top to bottom, then the right", async () => {
    const left = [
      "Staff parking permits are issued",
      "by the facilities desk on the",
      "ground floor. Each permit costs",
      "35 euros a month and is valid",
      "for one named vehicle only.",
    ];
    const right = [
      "Bicycle lockers are free for",
      "every employee. Ask for a key",
      "at the front desk and return it",
      "when you leave the company; a",
      "lost key costs ten euros.",
    ];
    const scan = await renderScanLike(
      left.map((l, i) => `${l}\t${right[i]}`),
      { dpi: 150, angle: 0.3, blur: 0.4, noise: 10, quality: 80, seed: 4 },
    );
    const doc = await parseDocument("two-columns.jpg", scan);
    expect(characterAccuracy([...left, ...right].join("\n"), doc.text)).toBeGreaterThanOrEqual(0.97);
    expect(doc.text.indexOf("Bicycle")).toBeGreaterThan(doc.text.indexOf("named vehicle"));
    expect(doc.text).not.toContain(" | ");
  });

  it("reads a scan-like Chinese page (300 dpi, skewed, grainy JPEG) at ≥ 99 % character accuracy", async () => {
    const scan = await renderScanLike(ZH[0], { dpi: 300, angle: -1.2, blur: 0.8, noise: 25, quality: 50, seed: 2 });
    const doc = await parseDocument("员工手册.jpg", scan);
    const accuracy = characterAccuracy(ZH[0].join("\n"), doc.text);
    console.log(`OCR character accuracy, scan-like Chinese page: ${(accuracy * 100).toFixed(1)} %`);
    expect(accuracy).toBeGreaterThanOrEqual(0.99);
  });

  it("reads JPEG (stored upside down, turned by its EXIF orientation), WebP and TIFF images", async () => {
    const lines = ["Core collaboration hours are 11:00 to 15:00.", "员工每天应工作满 8 小时。"];
    const png = await renderPage(lines);
    for (const [name, data] of [
      ["hours.jpg", await sharp(png).rotate(180).jpeg({ quality: 90 }).withMetadata({ orientation: 3 }).toBuffer()],
      ["hours.webp", await sharp(png).webp({ quality: 90 }).toBuffer()],
      ["hours.tiff", await sharp(png).tiff().toBuffer()],
    ] as const) {
      const doc = await parseDocument(name, data);
      expect(characterAccuracy(lines.join("\n"), doc.text), name).toBeGreaterThanOrEqual(0.9);
    }
  });

  it("reads each page of a multi-page TIFF as a page", async () => {
    const lines = [["Page one: the badge office opens at 08:30."], ["Page two: 访客须在前台登记。"]];
    const tiff = await makeMultiPageTiff(await Promise.all(lines.map(renderPage)));
    expect((await sharp(tiff).metadata()).pages).toBe(2);
    const heard: OcrProgress[] = [];
    const doc = await parseDocument("visitors.tiff", tiff, { onOcrPage: (p) => heard.push(p) });
    expect(doc).toMatchObject({ mimeType: "image/tiff" });
    expect(doc.pages?.map((p) => p.page)).toEqual([1, 2]);
    expect(heard.map((p) => p.page)).toEqual([1, 2]);
    const texts = pageTexts(doc);
    expect(characterAccuracy(lines[0][0], texts[0])).toBeGreaterThanOrEqual(0.9);
    expect(characterAccuracy(lines[1][0], texts[1])).toBeGreaterThanOrEqual(0.9);
  });

  it("reads only the scanned pages of a PDF whose other pages have a text layer, page numbers kept", async () => {
    const pdf = await PDFDocument.create();
    const font = await pdf.embedFont(StandardFonts.Helvetica);
    pdf.addPage([595, 842]).drawText("A typed cover page about the Glimmerquay audit.", { x: 50, y: 780, size: 12, font });
    const scan = await PDFDocument.load(await makeScannedPdf([await renderPage(EN[1].slice(0, 4))]));
    const [scanned] = await pdf.copyPages(scan, [0]);
    pdf.addPage(scanned);
    const heard: OcrProgress[] = [];
    const doc = await parseDocument("mixed.pdf", Buffer.from(await pdf.save()), { onOcrPage: (p) => heard.push(p) });
    expect(heard.map(({ page, total }) => ({ page, total }))).toEqual([{ page: 1, total: 1 }]);
    expect(doc.pages?.map((p) => p.page)).toEqual([1, 2]);
    const [typed, read] = pageTexts(doc);
    expect(typed).toContain("Glimmerquay audit");
    expect(characterAccuracy(EN[1].slice(0, 4).join("\n"), read)).toBeGreaterThanOrEqual(0.97);
  });

  it("refuses a scan with more pages than OCR_MAX_PAGES before reading any", async () => {
    process.env.OCR_MAX_PAGES = "1";
    const heard: OcrProgress[] = [];
    const pdf = await makeScannedPdf([await renderPage(["one"]), await renderPage(["two"])]);
    await expect(parseDocument("two-pages.pdf", pdf, { onOcrPage: (p) => heard.push(p) })).rejects.toMatchObject({
      code: "too_large",
      message: expect.stringContaining("OCR_MAX_PAGES"),
    });
    expect(heard).toEqual([]);
  });

  it("reads the pages of one scanned PDF in parallel in two OCR workers, the text in page order", async () => {
    await closeParsePool(); // the pool takes OCR_WORKERS when it starts
    process.env.OCR_WORKERS = "2";
    try {
      // Pages of a dozen lines: the next page is rendered while one is read, and a page of one short line was read
      // before the next was rendered, so no two pages were ever read at once.
      const filler = EN[0].slice(0, 11);
      const lines = [
        ["Page one: the badge office opens at 08:30.", ...filler],
        ["Page two: visitors sign in at the front desk.", ...filler],
        ["Page three: parking permits cost 35 euros.", ...filler],
        ["Page four: the library closes at 18:00.", ...filler],
      ];
      const heard: OcrProgress[] = [];
      const pdf = await makeScannedPdf(await Promise.all(lines.map(renderPage)));
      const doc = await parseDocument("four-pages.pdf", pdf, { onOcrPage: (p) => heard.push(p) });
      expect(doc.pages?.map((p) => p.page)).toEqual([1, 2, 3, 4]);
      const texts = pageTexts(doc);
      for (const [i, page] of lines.entries()) {
        expect(characterAccuracy(page.join("\n"), texts[i]), `page ${i + 1}`).toBeGreaterThanOrEqual(0.9);
        expect(texts[i], `page ${i + 1}`).toContain(page[0].slice(0, 12));
      }
      expect(heard.map((p) => p.page)).toEqual([1, 2, 3, 4]);
      // Two pages were being read at once: the second worker started a page before the first had finished its own.
      expect(Math.max(...heard.map((p) => p.reading))).toBe(2);
    } finally {
      await closeParsePool();
    }
  });

  it("keeps the other pages when one page of a file fails, naming the page and its budget", async () => {
    await closeParsePool();
    process.env.OCR_WORKERS = "2";
    process.env.OCR_MEMORY_MB = "900";
    try {
      const pages = [
        await renderPage(["The first page is short."]),
        await renderDensePage(),
        await renderPage(["The third page is short too."]),
      ];
      const doc = await parseDocument("one-bad-page.tiff", await makeMultiPageTiff(pages));
      expect(doc.pages?.map((p) => p.page)).toEqual([1, 2, 3]);
      const [first, second, third] = pageTexts(doc);
      expect(characterAccuracy("The first page is short.", first)).toBeGreaterThanOrEqual(0.9);
      expect(second).toMatch(/Page 2 of "one-bad-page.tiff" needed more than the 900 MB OCR memory budget \(OCR_MEMORY_MB\)/);
      expect(characterAccuracy("The third page is short too.", third)).toBeGreaterThanOrEqual(0.9);
    } finally {
      await closeParsePool();
    }
  });

  // Stopping a worker thread inside onnxruntime aborts the whole process at some points of a page (seen at one of
  // these points); OCR runs in child processes, which are safe to kill anywhere.
  it("cancels files at many points of a page and stays up, reading the next file", async () => {
    await closeParsePool(); // one OCR worker (the pool takes OCR_WORKERS when it starts): one to replace after each cancel
    process.env.OCR_WORKERS = "1";
    const page = await renderPage(EN[0]);
    const pdf = await makeScannedPdf(Array(6).fill(page)); // longer than the longest wait below, however fast the CPU
    for (const delay of [100, 450, 800, 1150]) {
      const ctrl = new AbortController();
      const read = parseDocument("cancelled.pdf", pdf, {
        signal: ctrl.signal,
        onOcrPage: (p) => {
          if (p.page === 1) setTimeout(() => ctrl.abort(), delay);
        },
      });
      await expect(read, `cancelled ${delay} ms into the page`).rejects.toMatchObject({ name: "AbortError" });
    }
    const doc = await parseDocument("next.png", await renderPage(["Read after a cancel."]));
    expect(characterAccuracy("Read after a cancel.", doc.text)).toBeGreaterThanOrEqual(0.9);
    await closeParsePool();
  });

  // Ten dense pages take seconds on any CPU; the one-second file budget stops the file part-way.
  it("stops a file that runs past OCR_FILE_TIMEOUT_SECONDS, naming the budget", async () => {
    process.env.OCR_FILE_TIMEOUT_SECONDS = "1";
    const page = await renderPage(EN[0]);
    const heard: OcrProgress[] = [];
    await expect(
      parseDocument("long-scan.pdf", await makeScannedPdf(Array(10).fill(page)), { onOcrPage: (p) => heard.push(p) }),
    ).rejects.toMatchObject({
      code: "parse_failed",
      message: expect.stringMatching(/OCR budget/),
    });
    expect(heard.length).toBeLessThan(10);
    // The pool reads the next file as usual (OCR runs in a child process: stopping it mid-page must not abort this one).
    delete process.env.OCR_FILE_TIMEOUT_SECONDS;
    const doc = await parseDocument("after.png", await renderPage(["Readable after the stop."]));
    expect(characterAccuracy("Readable after the stop.", doc.text)).toBeGreaterThanOrEqual(0.9);
  });

  // A dense 2048 × 2048 page takes the OCR process past 1 GB, most of it outside the JavaScript heap (models, images,
  // WebAssembly): the operating system's cap on the whole process stops it (lib/worker/memory-cap.ts).
  it("stops a page that needs more memory than OCR_MEMORY_MB in all (not only heap), alone, and reads the next file", async () => {
    await closeParsePool(); // the pool takes OCR_MEMORY_MB when it starts
    process.env.OCR_MEMORY_MB = "900";
    try {
      await expect(parseDocument("dense.png", await renderDensePage())).rejects.toMatchObject({
        code: "too_large",
        message: expect.stringContaining("OCR_MEMORY_MB"),
      });
      const doc = await parseDocument("after.png", await renderPage(["Read after the memory stop."]));
      expect(characterAccuracy("Read after the memory stop.", doc.text)).toBeGreaterThanOrEqual(0.9);
    } finally {
      await closeParsePool();
    }
  });
});
