import { parseHTML } from "linkedom";
import { AppError, type ParsedDocument } from "@/lib/types";
import { exceedsNesting } from "./depth";
import { type ParseOptions, resolveLimits } from "./limits";
import { htmlToMarkdown } from "./markdown";
import { markdownTitle } from "./text";
import { checkTextSize, openArchive, resolvePart, tags } from "./zip";

const CHROME = "script, style, noscript, template, iframe, nav, form";

/**
 * EPUB → its chapters in reading order (the package's spine), each XHTML chapter as Markdown; the book's title
 * and author from its metadata. JSZip + linkedom, chapters through the HTML path's Markdown conversion.
 */
export async function parseEpub(data: Uint8Array, filename: string, opts?: ParseOptions): Promise<ParsedDocument> {
  const limits = resolveLimits(opts);
  const archive = await openArchive(data, filename, limits, "EPUB", opts?.signal);
  const container = await archive.xml("META-INF/container.xml");
  const opfPath = container && tags(container, "rootfile")[0]?.getAttribute("full-path");
  const opf = opfPath ? await archive.xml(opfPath) : undefined;
  if (!opfPath || !opf) throw new AppError("parse_failed", `"${filename}" is a ZIP archive but not an EPUB book (no package document).`);

  const manifest = new Map(tags(opf, "item").map((i) => [i.getAttribute("id") ?? "", i]));
  const chapters: string[] = [];
  let size = 0;
  for (const ref of tags(opf, "itemref")) {
    const item = manifest.get(ref.getAttribute("idref") ?? "");
    const href = item?.getAttribute("href");
    if (!item || !href || !/html/.test(item.getAttribute("media-type") ?? "")) continue;
    const html = await archive.text(resolvePart(opfPath, decodeURIComponent(href)));
    if (!html) continue;
    if (exceedsNesting(html, limits.maxHtmlDepth)) {
      throw new AppError("parse_failed", `"${filename}" nests HTML elements more than ${limits.maxHtmlDepth} levels deep.`);
    }
    const { document } = parseHTML(html);
    for (const el of document.querySelectorAll(CHROME)) el.remove();
    const md = htmlToMarkdown(document.body?.innerHTML ?? "");
    if (md) chapters.push(md);
    size += md.length + 2;
    if (size > limits.maxTextChars) checkTextSize(chapters.join("\n\n"), filename, limits);
  }
  const text = chapters.join("\n\n");
  if (!text.trim()) throw new AppError("parse_failed", `"${filename}": this book has no text.`);
  const title = tags(opf, "dc:title")[0]?.textContent?.trim() || markdownTitle(text);
  const author = tags(opf, "dc:creator")[0]?.textContent?.trim() || undefined;
  return { text, title, author, mimeType: "application/epub+zip" };
}
