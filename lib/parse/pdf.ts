import { CJK_SPACELESS_CLASS } from "@/lib/text/cjk";
import { endsClause } from "@/lib/text/sentences";
import { AppError, type ParsedDocument } from "@/lib/types";
import { ownCpuMs } from "@/lib/worker/cpu";
import { PagedText, type ParseOptions, resolveLimits } from "./limits";
import { checkOcrBudget, checkOcrPages, MIN_PAGE_TEXT_CHARS, NeedsOcr } from "./ocr";
import { OCR_MAX_SIDE } from "./ocr-engine";

/** Node's copy of pdf.js, loaded on first use (it is large). */
async function loadUnpdf() {
  return import("unpdf");
}

/** A line that starts a list item: a bullet, or a number or letter with a period or parenthesis. */
const LIST_ITEM = /^(?:[•·▪◦‣*–—-]\s|\(?(?:\d{1,3}|[a-z])[.)]\s)/u;
const SPACELESS_END = new RegExp(`[${CJK_SPACELESS_CLASS}]$`, "u");
const SPACELESS_START = new RegExp(`^[${CJK_SPACELESS_CLASS}]`, "u");
/** A table row as OCR writes it (lib/parse/ocr.ts): its cells joined by " | ". */
const TABLE_ROW = / \| /;
/** A line at least this share of the page's longest line ran to the right margin: the text wrapped. */
const WRAPPED_LINE = 0.6;

/**
 * Joins the lines a PDF wrapped inside a paragraph, so a sentence is not cut where its line ended (the
 * sentence splitter ends a sentence at every line break). A break is kept after a line that ends a sentence
 * or clause, after a short line (a heading, a paragraph's last line, a table row), around a table row read by OCR,
 * and before a list item.
 * Latin lines join with a space, Chinese and Japanese ones without; a word hyphenated at a line end joins
 * with its hyphen.
 */
function joinWrappedLines(text: string): string {
  const lines = text.split("\n");
  const longest = lines.reduce((m, l) => Math.max(m, l.length), 0);
  let out = lines[0];
  for (let i = 1; i < lines.length; i++) {
    const prev = lines[i - 1];
    const line = lines[i];
    const wrapped =
      prev !== "" &&
      line !== "" &&
      prev.length >= longest * WRAPPED_LINE &&
      !endsClause(prev) &&
      !LIST_ITEM.test(line) &&
      !TABLE_ROW.test(prev) &&
      !TABLE_ROW.test(line);
    if (!wrapped) out += `\n${line}`;
    else if (/\p{L}-$/u.test(prev) || (SPACELESS_END.test(prev) && SPACELESS_START.test(line))) out += line;
    else out += ` ${line}`;
  }
  return out;
}

function cleanPageText(text: string): string {
  const cleaned = text
    // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL bytes from broken PDF text are what this strips
    .replace(/\u0000/g, "")
    .replace(/\r\n?/g, "\n")
    .replace(/[^\S\n]+/g, " ")
    .replace(/ ?\n ?/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  return joinWrappedLines(cleaned);
}

type PdfDocument = Awaited<ReturnType<Awaited<ReturnType<typeof loadUnpdf>>["getDocumentProxy"]>>;

/** pdf.js's drawing operators that paint an image. */
const IMAGE_OPS = ["paintImageXObject", "paintInlineImageXObject", "paintImageXObjectRepeat", "paintJpegXObject"];

/** Whether a page paints an image: a page with (almost) no text that does is a scan, one that does not is blank. */
async function drawsImage(page: Awaited<ReturnType<PdfDocument["getPage"]>>): Promise<boolean> {
  const { getResolvedPDFJS } = await loadUnpdf();
  const { OPS } = await getResolvedPDFJS();
  const wanted = new Set(IMAGE_OPS.map((op) => (OPS as Record<string, number>)[op]).filter((op) => op !== undefined));
  const ops = await page.getOperatorList();
  return ops.fnArray.some((fn) => wanted.has(fn));
}

/**
 * Pages are rendered at this resolution (A4: 1,240 × 1,754 pixels; 10-point text is 21 pixels high, which the
 * models read well), the longer side at most OCR_MAX_SIDE. Finer costs time and memory for no better reading.
 */
const RENDER_DPI = 150;

/** One page rendered to PNG (pdf.js on @napi-rs/canvas, whose binary comes with its npm package). */
async function renderPage(pdf: PdfDocument, n: number): Promise<Buffer> {
  const { renderPageAsImage } = await loadUnpdf();
  const page = await pdf.getPage(n);
  const { width, height } = page.getViewport({ scale: 1 });
  const scale = Math.min(RENDER_DPI / 72, OCR_MAX_SIDE / Math.max(width, height, 1));
  const png = await renderPageAsImage(pdf, n, { canvasImport: () => import("@napi-rs/canvas"), scale });
  page.cleanup();
  return Buffer.from(png);
}

/**
 * PDF → text per page, joined with blank lines; `pages` records where each page starts so chunks
 * can cite "p. 12". Pages with an image and no text layer (or almost none: a scan) are read by OCR when the task
 * runs it (`opts.ocr`); otherwise NeedsOcr asks for such a task. Refuses PDFs over the page limit.
 */
export async function parsePdf(data: Uint8Array, filename: string, opts?: ParseOptions): Promise<ParsedDocument> {
  const limits = resolveLimits(opts);
  const cpuDeadline = ownCpuMs() + limits.timeBudgetMs;
  const { getDocumentProxy } = await loadUnpdf();
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // pdf.js may detach the buffer it is given: hand it a copy.
    pdf = await getDocumentProxy(new Uint8Array(data), { verbosity: 0, stopAtErrors: false });
  } catch (err) {
    const name = (err as Error)?.name;
    if (name === "PasswordException") {
      throw new AppError("parse_failed", `"${filename}" is password-protected; remove the password and upload it again.`);
    }
    throw new AppError("parse_failed", `"${filename}" could not be read: the PDF is corrupt or invalid.`);
  }
  try {
    if (pdf.numPages > limits.maxPdfPages) {
      throw new AppError("too_large", `"${filename}" has ${pdf.numPages} pages; at most ${limits.maxPdfPages} pages are accepted.`);
    }
    const doc = new PagedText(filename, limits.maxTextChars);
    const layers: string[] = [];
    const scanned: number[] = [];
    for (let n = 1; n <= pdf.numPages; n++) {
      if (opts?.signal?.aborted) throw new AppError("cancelled", "Parsing was cancelled.");
      if (ownCpuMs() > cpuDeadline) {
        throw new AppError("parse_failed", `"${filename}" took too long to parse (stopped at page ${n}).`);
      }
      let pageText: string;
      try {
        const page = await pdf.getPage(n);
        const content = await page.getTextContent();
        pageText = cleanPageText(content.items.map((item) => ("str" in item ? item.str + (item.hasEOL ? "\n" : "") : "")).join(""));
        if (pageText.replace(/\s/g, "").length < MIN_PAGE_TEXT_CHARS && (await drawsImage(page))) scanned.push(n);
        page.cleanup();
      } catch {
        throw new AppError("parse_failed", `"${filename}" could not be read: page ${n} of the PDF is corrupt.`);
      }
      layers.push(pageText);
    }
    const run = opts?.ocr;
    if (scanned.length > 0 && !run) throw new NeedsOcr(scanned.length);
    if (run) checkOcrPages(run, filename, scanned.length);
    for (let n = 1; n <= layers.length; n++) {
      let pageText = layers[n - 1];
      if (run && scanned.includes(n)) {
        checkOcrBudget(run, filename, n, opts?.signal);
        const read = cleanPageText(await run.read(n, scanned.length, () => renderPage(pdf, n)));
        if (read.replace(/\s/g, "").length > pageText.replace(/\s/g, "").length) pageText = read;
      }
      doc.add(n, pageText);
    }
    if (!doc.text.trim()) {
      throw new AppError(
        "parse_failed",
        run
          ? `"${filename}": no text was found in this PDF, neither in its text layer nor by OCR of its scanned pages.`
          : `"${filename}": this PDF has no text layer and no scanned page to read by OCR.`,
      );
    }
    let title: string | undefined;
    try {
      const meta = await pdf.getMetadata();
      const t = (meta.info as Record<string, unknown> | undefined)?.Title;
      if (typeof t === "string" && t.trim()) title = t.trim();
    } catch {
      // metadata is optional
    }
    return { text: doc.text, title, mimeType: "application/pdf", pages: doc.pages };
  } finally {
    await pdf.loadingTask.destroy().catch(() => {});
  }
}
