import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";
import { AppError, type ParsedDocument } from "@/lib/types";
import { exceedsNesting } from "./depth";
import { type ParseOptions, resolveLimits } from "./limits";
import { htmlToMarkdown } from "./markdown";
import { decodeText } from "./text";

const CHROME = "script, style, noscript, template, iframe, nav, aside, form, [role=navigation], [role=search], [aria-hidden=true]";

/** Removes page chrome: navigation, scripts, and site header/footer (those inside an article stay). */
function stripChrome(document: ReturnType<typeof parseHTML>["document"]) {
  for (const el of document.querySelectorAll(CHROME)) el.remove();
  document.querySelectorAll("header, footer").forEach((el) => {
    if (!el.parentElement?.closest("article, main")) el.remove();
  });
}

/** Decodes by the page's declared charset (`<meta charset>` / http-equiv), else UTF-8 or GB18030. */
function decodeHtml(data: Uint8Array): string {
  const head = Buffer.from(data.buffer, data.byteOffset, Math.min(data.byteLength, 2048)).toString("latin1");
  const label = /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head)?.[1];
  if (label && !/^utf-?8$/i.test(label)) {
    try {
      return new TextDecoder(label).decode(data);
    } catch {
      // unknown label: fall through
    }
  }
  return decodeText(data);
}

/** HTML → the page's main content as Markdown (Readability), without navigation, scripts or styles. */
export function parseHtml(data: Uint8Array, filename: string, opts?: ParseOptions): ParsedDocument {
  const limits = resolveLimits(opts);
  const html = decodeHtml(data);
  if (exceedsNesting(html, limits.maxHtmlDepth)) {
    throw new AppError(
      "parse_failed",
      `"${filename}" nests HTML elements more than ${limits.maxHtmlDepth} levels deep; such a page cannot be read safely.`,
    );
  }
  const { document } = parseHTML(html);
  const pageTitle = document.querySelector("title")?.textContent?.trim() || undefined;
  stripChrome(document);

  let title: string | undefined;
  let body = "";
  try {
    const article = new Readability(document as unknown as Document, { charThreshold: 200 }).parse();
    if (article?.content) {
      body = htmlToMarkdown(article.content);
      title = article.title?.trim() || undefined;
    }
  } catch {
    // Readability gave up: fall back to the body without its chrome.
  }
  if (!body) {
    const { document: doc } = parseHTML(html);
    stripChrome(doc);
    body = htmlToMarkdown(doc.body?.innerHTML ?? doc.toString());
  }
  title ||= pageTitle;
  if (!body.trim()) throw new AppError("parse_failed", `"${filename}": this HTML page has no readable text.`);
  // Readability drops the H1 that repeats the title; put it back so it heads the heading path.
  const text = title && !/^#\s/.test(body) ? `# ${title}\n\n${body}` : body;
  if (text.length > limits.maxTextChars) {
    throw new AppError("too_large", `"${filename}" holds more text than the ${limits.maxTextChars}-character limit.`);
  }
  return { text, title, mimeType: "text/html" };
}
