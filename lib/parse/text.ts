import { headingTitle } from "@/lib/chunk/sections";
import type { ParsedDocument } from "@/lib/types";
import { EXTENSION_FORMATS, extensionOf } from "./formats";
import { frontMatter } from "./front-matter";

/**
 * Decodes a text file: UTF-16 when it starts with a UTF-16 BOM, UTF-8 (with or without BOM) when
 * it is valid UTF-8, otherwise GB18030, the superset of GBK/GB2312 that Chinese Windows tools still write.
 */
export function decodeText(data: Uint8Array): string {
  if (data[0] === 0xff && data[1] === 0xfe) return new TextDecoder("utf-16le").decode(data);
  if (data[0] === 0xfe && data[1] === 0xff) return new TextDecoder("utf-16be").decode(data);
  const utf16 = detectUtf16(data);
  if (utf16) return new TextDecoder(utf16).decode(data);
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(data);
  } catch {
    return new TextDecoder("gb18030").decode(data);
  }
}

/**
 * UTF-16 without a BOM, recognised by its zero bytes: text with Latin characters has a zero as one byte of
 * most code units, always on the same side (odd offsets for little-endian), and almost never on the other.
 */
export function detectUtf16(data: Uint8Array): "utf-16le" | "utf-16be" | null {
  const n = Math.min(data.byteLength, 8192) & ~1;
  if (n < 4) return null;
  let even = 0;
  let odd = 0;
  for (let i = 0; i < n; i += 2) {
    if (data[i] === 0) even++;
    if (data[i + 1] === 0) odd++;
  }
  const units = n / 2;
  if (odd >= units * 0.3 && even <= units * 0.02) return "utf-16le";
  if (even >= units * 0.3 && odd <= units * 0.02) return "utf-16be";
  return null;
}

/** First Markdown H1 (`# Title`), without attribute block or HTML, or undefined. */
export function markdownTitle(text: string): string | undefined {
  const m = /^#[ \t]+(.+?)[ \t#]*$/m.exec(text);
  return (m && headingTitle(m[1])) || undefined;
}

/**
 * Markdown with YAML front matter: the metadata block is read (title, tags, author) and left out of the text,
 * so it is neither indexed nor shown as body; the title is the front matter's, else the first H1.
 */
export function parseMarkdown(data: Uint8Array): ParsedDocument {
  const { meta, body } = frontMatter(normalizeNewlines(decodeText(data)));
  const doc: ParsedDocument = { text: body, title: meta.title || markdownTitle(body), mimeType: "text/markdown" };
  if (meta.tags?.length) doc.tags = meta.tags;
  if (meta.author) doc.author = meta.author;
  return doc;
}

/** A Markdown file that is YAML front matter and nothing else: metadata, no text to index. */
export function isFrontMatterOnly(filename: string, data: Uint8Array): boolean {
  if (EXTENSION_FORMATS[extensionOf(filename) as keyof typeof EXTENSION_FORMATS] !== "markdown") return false;
  const text = normalizeNewlines(decodeText(data));
  const { body } = frontMatter(text);
  return body !== text && body.trim() === "";
}

export function parsePlainText(data: Uint8Array): ParsedDocument {
  return { text: normalizeNewlines(decodeText(data)), mimeType: "text/plain" };
}

function normalizeNewlines(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}
