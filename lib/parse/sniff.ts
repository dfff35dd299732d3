import { detectUtf16 } from "./text";

/** What the bytes of a file look like, independent of its name. */
export type ContentKind = "pdf" | "docx" | "zip" | "image" | "binary" | "html" | "json" | "text";

const PDF_MAGIC = Buffer.from("%PDF-");
const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
/** The images OCR reads (lib/parse/image.ts). */
const IMAGE_MAGICS = [
  Buffer.from([0x89, 0x50, 0x4e, 0x47]), // PNG
  Buffer.from([0xff, 0xd8, 0xff]), // JPEG
  Buffer.from([0x49, 0x49, 0x2a, 0x00]), // TIFF, little-endian
  Buffer.from([0x4d, 0x4d, 0x00, 0x2a]), // TIFF, big-endian
];
const BINARY_MAGICS = [
  Buffer.from("GIF8"),
  Buffer.from([0xd0, 0xcf, 0x11, 0xe0]), // OLE2 (.doc, .xls)
  Buffer.from([0x1f, 0x8b]), // gzip
  Buffer.from("Rar!"),
  Buffer.from([0x7f, 0x45, 0x4c, 0x46]), // ELF
  Buffer.from("MZ"), // Windows executable
];

export function sniffContent(data: Uint8Array): ContentKind {
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  // pdf.js accepts the header anywhere in the first KiB, so do we.
  const pdfAt = buf.subarray(0, 1024).indexOf(PDF_MAGIC);
  if (pdfAt !== -1) return "pdf";
  if (buf.subarray(0, 4).equals(ZIP_MAGIC)) {
    return buf.indexOf("word/document.xml") !== -1 ? "docx" : "zip";
  }
  if (IMAGE_MAGICS.some((m) => buf.subarray(0, m.length).equals(m))) return "image";
  if (buf.subarray(0, 4).toString("latin1") === "RIFF" && buf.subarray(8, 12).toString("latin1") === "WEBP") return "image";
  if (BINARY_MAGICS.some((m) => buf.subarray(0, m.length).equals(m))) return "binary";
  const head = buf.subarray(0, 8192);
  const utf16 = (head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff) || detectUtf16(head) !== null;
  if (!utf16 && head.includes(0)) return "binary";
  if (utf16) return "text";
  const start = head
    .toString("utf8")
    .replace(/^\uFEFF/, "")
    .trimStart()
    .slice(0, 512)
    .toLowerCase();
  if (/^(<!doctype html|<html[\s>]|<head[\s>]|<body[\s>])/.test(start)) return "html";
  if (start.startsWith("{") || start.startsWith("[")) {
    try {
      JSON.parse(buf.toString("utf8").replace(/^\uFEFF/, ""));
      return "json";
    } catch {
      // not JSON: plain text that happens to start with a bracket
    }
  }
  return "text";
}

export function describeKind(kind: ContentKind): string {
  return {
    pdf: "a PDF document",
    docx: "a Word document",
    zip: "a ZIP archive",
    image: "an image",
    binary: "binary data",
    html: "an HTML page",
    json: "JSON",
    text: "text",
  }[kind];
}
