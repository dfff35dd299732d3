import JSZip from "jszip";
import { parseHTML } from "linkedom";
import mammoth from "mammoth";
import { AppError, type ParsedDocument } from "@/lib/types";
import { type ParseLimits, type ParseOptions, resolveLimits } from "./limits";
import { htmlToMarkdown, noteAt } from "./markdown";
import { markdownTitle } from "./text";
import { checkDeclaredSizes, type ZipEntry, zipBomb } from "./zip";

/**
 * Decompression-bomb guard, run before mammoth sees the file: the declared sizes must fit the
 * limits, and the XML parts mammoth will read are then really inflated with a byte counter, since
 * declared sizes can lie. Media is never inflated (images are dropped).
 */
async function checkDocxArchive(data: Uint8Array, filename: string, limits: ParseLimits, signal?: AbortSignal) {
  let zip: JSZip;
  try {
    zip = await JSZip.loadAsync(data, { checkCRC32: false });
  } catch {
    throw new AppError("parse_failed", `"${filename}" could not be read: the DOCX file is corrupt.`);
  }
  if (!zip.file("word/document.xml")) {
    throw new AppError("parse_failed", `"${filename}" is a ZIP archive but not a Word document (no word/document.xml).`);
  }
  const bomb = zipBomb(filename);
  const entries = Object.values(zip.files).filter((f) => !f.dir) as ZipEntry[];
  checkDeclaredSizes(entries, limits, bomb);

  let inflated = 0;
  for (const e of entries) {
    if (!/\.(xml|rels)$/i.test(e.name)) continue;
    await new Promise<void>((resolve, reject) => {
      const stream = e.nodeStream("nodebuffer");
      stream.on("data", (chunk: Buffer) => {
        inflated += chunk.length;
        if (inflated > limits.maxDocxUncompressedBytes || signal?.aborted) {
          stream.pause();
          stream.removeAllListeners("data");
          reject(signal?.aborted ? new AppError("cancelled", "Parsing was cancelled.") : bomb());
        }
      });
      stream.on("error", () => reject(new AppError("parse_failed", `"${filename}" could not be read: the DOCX file is corrupt.`)));
      stream.on("end", () => resolve());
    });
  }
}

/**
 * Mammoth writes a note as a link to a numbered list at the end (`[1]` → `<li id="footnote-1">…↑</li>`): each note's
 * text goes to where it is referenced instead, and the list at the end is dropped.
 */
function notesInPlace(html: string): string {
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
  for (const ref of [...document.querySelectorAll('a[href^="#footnote-"], a[href^="#endnote-"]')]) {
    const id = ref.getAttribute("href")?.slice(1) ?? "";
    if (id.startsWith("footnote-ref-") || id.startsWith("endnote-ref-")) continue;
    const note = document.getElementById(id);
    if (!note) continue;
    for (const back of [...note.querySelectorAll('a[href^="#footnote-ref-"], a[href^="#endnote-ref-"]')]) back.remove();
    const label = (ref.textContent ?? "").replace(/[[\]]/g, "").trim();
    const marker = ref.parentElement?.tagName === "SUP" ? ref.parentElement : ref;
    marker.replaceWith(document.createTextNode(noteAt(id.startsWith("endnote") ? "Endnote" : "Footnote", label, note.textContent ?? "")));
    const list = note.parentElement;
    note.remove();
    if (list && list.children.length === 0) list.remove();
  }
  return document.body.innerHTML;
}

/** DOCX → Markdown: Word headings become `#` headings (→ heading paths), tables become text rows. */
export async function parseDocx(data: Uint8Array, filename: string, opts?: ParseOptions): Promise<ParsedDocument> {
  const limits = resolveLimits(opts);
  await checkDocxArchive(data, filename, limits, opts?.signal);
  let html: string;
  try {
    const result = await mammoth.convertToHtml(
      { buffer: Buffer.from(data.buffer, data.byteOffset, data.byteLength) },
      {
        // Never read images (they would be inlined as data URIs) nor linked external files.
        convertImage: mammoth.images.imgElement(async () => ({ src: "" })),
        externalFileAccess: false,
      },
    );
    html = result.value;
  } catch {
    throw new AppError("parse_failed", `"${filename}" could not be read: the Word document is corrupt.`);
  }
  const text = htmlToMarkdown(notesInPlace(html), { inlineEscapes: false });
  if (text.length > limits.maxTextChars) {
    throw new AppError("too_large", `"${filename}" holds more text than the ${limits.maxTextChars}-character limit.`);
  }
  if (!text.trim()) throw new AppError("parse_failed", `"${filename}": this Word document has no text.`);
  return {
    text,
    title: markdownTitle(text),
    mimeType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  };
}
