import path from "node:path";
import { isMainThread } from "node:worker_threads";
import { AppError, type ParsedDocument } from "@/lib/types";
import { parseCsv } from "./csv";
import { parseDocx } from "./docx";
import { parseEml } from "./eml";
import { parseEpub } from "./epub";
import { EXTENSION_FORMATS, type FormatName, unsupportedTypeMessage } from "./formats";
import { parseHtml } from "./html";
import { parseImage } from "./image";
import { parseJson } from "./json";
import type { ParseOptions } from "./limits";
import { NeedsOcr } from "./ocr";
import { parseOpenDocument } from "./opendocument";
import { parsePdf } from "./pdf";
import { type ParsedAndChunked, type ParseInWorkerOptions, parseInWorker } from "./pool";
import { parsePptx } from "./pptx";
import { type ContentKind, describeKind, sniffContent } from "./sniff";
import { parseMarkdown, parsePlainText } from "./text";
import { parseXlsx } from "./xlsx";

export type { ParseOptions } from "./limits";
export { DEFAULT_PARSE_LIMITS } from "./limits";
export type { OcrProgress, ParsedAndChunked } from "./pool";

type Parser = (data: Uint8Array, filename: string, opts?: ParseOptions) => ParsedDocument | Promise<ParsedDocument>;

interface Format {
  parse: Parser;
  /** Content kinds (from sniffing) this format accepts. */
  accepts: ContentKind[];
  label: string;
}

const TEXTUAL: ContentKind[] = ["text", "html", "json"];

const FORMATS = {
  pdf: { parse: parsePdf, accepts: ["pdf"], label: "PDF" },
  docx: { parse: parseDocx, accepts: ["docx", "zip"], label: "Word (DOCX)" },
  html: { parse: parseHtml, accepts: TEXTUAL, label: "HTML" },
  csv: { parse: parseCsv, accepts: TEXTUAL, label: "CSV" },
  json: { parse: parseJson, accepts: TEXTUAL, label: "JSON" },
  markdown: { parse: parseMarkdown, accepts: TEXTUAL, label: "Markdown" },
  text: { parse: parsePlainText, accepts: TEXTUAL, label: "plain text" },
  image: { parse: parseImage, accepts: ["image"], label: "an image (PNG, JPEG, WebP, TIFF)" },
  pptx: { parse: parsePptx, accepts: ["zip"], label: "PowerPoint (PPTX)" },
  xlsx: { parse: parseXlsx, accepts: ["zip"], label: "Excel (XLSX)" },
  opendocument: { parse: parseOpenDocument, accepts: ["zip"], label: "OpenDocument (ODT, ODS, ODP)" },
  epub: { parse: parseEpub, accepts: ["zip"], label: "EPUB" },
  eml: { parse: (data, filename, opts) => parseEml(data, filename, opts, parseDocumentHere), accepts: TEXTUAL, label: "e-mail (EML)" },
} satisfies Record<FormatName, Format>;

const EXTENSIONS: Record<string, FormatName> = EXTENSION_FORMATS;

/** Format chosen for a file without an extension, from its content alone. */
const BY_CONTENT: Partial<Record<ContentKind, FormatName>> = {
  pdf: "pdf",
  docx: "docx",
  image: "image",
  html: "html",
  json: "json",
  text: "text",
};

export { SUPPORTED_EXTENSIONS } from "./formats";

export function isSupported(filename: string): boolean {
  return path.extname(filename).toLowerCase() in EXTENSIONS;
}

/**
 * Decides a file's format from its extension and its bytes together. A known extension must agree
 * with the content (a ".pdf" that is not a PDF is refused); a file without extension is sniffed.
 */
export function detectFormat(filename: string, data: Uint8Array): FormatName {
  const ext = path.extname(filename).toLowerCase();
  const kind = sniffContent(data);
  const byExt = EXTENSIONS[ext];
  if (byExt) {
    if (!(FORMATS[byExt].accepts as ContentKind[]).includes(kind)) {
      throw new AppError(
        "unsupported_type",
        `"${filename}" has the extension ${ext} but its content is ${describeKind(kind)}, not ${FORMATS[byExt].label}.`,
      );
    }
    return byExt;
  }
  const byContent = ext === "" ? BY_CONTENT[kind] : undefined;
  if (!byContent) {
    throw new AppError("unsupported_type", unsupportedTypeMessage(filename, ext || describeKind(kind)));
  }
  return byContent;
}

/**
 * Parses a file's bytes into text in this thread. Throws AppError: "unsupported_type" for formats not
 * handled, "parse_failed" for broken files, "too_large" when a parse limit is hit. Untrusted input should
 * go through parseDocument, which runs this in a worker with a hard time and memory budget.
 */
export async function parseDocumentHere(filename: string, data: Uint8Array, opts?: ParseOptions): Promise<ParsedDocument> {
  const format = detectFormat(filename, data);
  try {
    return await FORMATS[format].parse(data, filename, opts);
  } catch (err) {
    if (err instanceof AppError || err instanceof NeedsOcr) throw err;
    throw new AppError("parse_failed", `"${filename}" could not be parsed as ${FORMATS[format].label}.`);
  }
}

/**
 * Parses a file's bytes into text in a worker thread (lib/parse/pool.ts): the file's format is checked
 * here, the parsing runs where PARSE_TIMEOUT_SECONDS / PARSE_MEMORY_MB can stop it; the server keeps
 * answering meanwhile. Inside a worker it parses in place.
 */
export async function parseDocument(filename: string, data: Uint8Array, opts?: ParseInWorkerOptions): Promise<ParsedAndChunked> {
  if (!isMainThread) return parseDocumentHere(filename, data, opts);
  detectFormat(filename, data);
  return parseInWorker(filename, data, opts);
}
