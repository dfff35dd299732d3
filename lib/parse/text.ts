import type { ParsedDocument } from "@/lib/types";

/**
 * Decodes a text file: UTF-16 when it starts with a UTF-16 BOM, UTF-8 (with or without BOM) when
 * it is valid UTF-8, otherwise GB18030, the superset of GBK/GB2312 that Chinese Windows tools still write.
 */
export function decodeText(data: Uint8Array): string {
  if (data[0] === 0xff && data[1] === 0xfe) return new TextDecoder("utf-16le").decode(data);
  if (data[0] === 0xfe && data[1] === 0xff) return new TextDecoder("utf-16be").decode(data);
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(data);
  } catch {
    return new TextDecoder("gb18030").decode(data);
  }
}

/** First Markdown H1 (`# Title`), or undefined. */
export function markdownTitle(text: string): string | undefined {
  const m = /^#[ \t]+(.+?)[ \t#]*$/m.exec(text);
  return m?.[1]?.trim() || undefined;
}

export function parseMarkdown(data: Uint8Array): ParsedDocument {
  const text = normalizeNewlines(decodeText(data));
  return { text, title: markdownTitle(text), mimeType: "text/markdown" };
}

export function parsePlainText(data: Uint8Array): ParsedDocument {
  return { text: normalizeNewlines(decodeText(data)), mimeType: "text/plain" };
}

export function normalizeNewlines(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}
