import path from "node:path";
import { AppError, type ParsedDocument } from "@/lib/types";
import { type ParseOptions, resolveLimits } from "./limits";
import { listItem, markdownTable, noteAt } from "./markdown";
import { type Slide, slidesToDocument } from "./pptx";
import { titleBoxIndex } from "./pptx-parts";
import { type Sheet, sheetsToText } from "./sheets";
import { markdownTitle } from "./text";
import { checkTextSize, openArchive, tags } from "./zip";

const MIME = {
  text: "application/vnd.oasis.opendocument.text",
  spreadsheet: "application/vnd.oasis.opendocument.spreadsheet",
  presentation: "application/vnd.oasis.opendocument.presentation",
} as const;

/** Repeated rows or cells with text are written out at most this many times (a sheet may repeat one a million times). */
const MAX_REPEAT = 100;

/**
 * An element's text as ODF means it: `text:s` is spaces, `text:tab` a tab, `text:line-break` a new line, a
 * footnote or endnote its text where it is referenced; annotations (comments) left out.
 */
function odfText(node: Node): string {
  let out = "";
  for (const child of [...node.childNodes]) {
    if (child.nodeType === 3) out += child.textContent ?? "";
    else if (child.nodeType === 1) {
      const el = child as Element;
      if (el.tagName === "text:s") out += " ".repeat(Math.min(Number(el.getAttribute("text:c") ?? 1) || 1, 100));
      else if (el.tagName === "text:tab") out += "\t";
      else if (el.tagName === "text:line-break") out += "\n";
      else if (el.tagName === "text:note") {
        const body = tags(el, "text:note-body")[0];
        const text = body ? [...body.children].map(odfText).join(" ") : "";
        const label = tags(el, "text:note-citation")[0]?.textContent?.trim() ?? "";
        if (text.trim()) out += noteAt(el.getAttribute("text:note-class") === "endnote" ? "Endnote" : "Footnote", label, text);
      } else if (el.tagName !== "office:annotation") out += odfText(el);
    }
  }
  return out;
}

const clean = (s: string) => s.replace(/[^\S\n]+/g, " ").trim();

/** Per list style, whether each level (0-based) is numbered and where it starts. */
type ListStyles = Map<string, { numbered: boolean; start: number }[]>;

/** The list styles of content.xml and styles.xml (a list's style may live in either). */
function listStyles(...docs: (Document | undefined)[]): ListStyles {
  const out: ListStyles = new Map();
  for (const style of docs.flatMap((d) => (d ? tags(d, "text:list-style") : []))) {
    const levels: { numbered: boolean; start: number }[] = [];
    for (const level of [...style.children]) {
      const n = Number(level.getAttribute("text:level") ?? 0) - 1;
      if (n < 0 || n > 9) continue;
      const numbered = level.tagName === "text:list-level-style-number" && (level.getAttribute("style:num-format") ?? "") !== "";
      levels[n] = { numbered, start: Number(level.getAttribute("text:start-value") ?? 1) || 1 };
    }
    out.set(style.getAttribute("style:name") ?? "", levels);
  }
  return out;
}

/** A list as Markdown list lines: numbered where its style numbers the level, nested lists indented under their item. */
function listLines(list: Element, styles: ListStyles, depth: number, inherited: string | null): string[] {
  const name = list.getAttribute("text:style-name") ?? inherited;
  const level = (name && styles.get(name)?.[depth]) || undefined;
  let n = level?.start ?? 1;
  const out: string[] = [];
  for (const item of [...list.children].filter((c) => c.tagName === "text:list-item" || c.tagName === "text:list-header")) {
    const start = Number(item.getAttribute("text:start-value"));
    if (start) n = start;
    const text = clean(
      [...item.children]
        .filter((c) => c.tagName === "text:p" || c.tagName === "text:h")
        .map(odfText)
        .join(" "),
    );
    if (text) out.push(listItem(depth, level?.numbered ? `${n++}.` : "-", text));
    for (const nested of [...item.children].filter((c) => c.tagName === "text:list"))
      out.push(...listLines(nested, styles, depth + 1, name));
  }
  return out;
}

/** ODT body → Markdown: headings by outline level, paragraphs, lists (numbered as their style numbers them), tables. */
function textBlocks(root: Element, styles: ListStyles): string[] {
  const out: string[] = [];
  for (const el of [...root.children]) {
    switch (el.tagName) {
      case "text:h": {
        const level = Math.min(6, Math.max(1, Number(el.getAttribute("text:outline-level") ?? 1) || 1));
        const t = clean(odfText(el));
        if (t) out.push(`${"#".repeat(level)} ${t}`);
        break;
      }
      case "text:p": {
        const t = clean(odfText(el));
        if (t) out.push(t);
        break;
      }
      case "text:list": {
        const lines = listLines(el, styles, 0, null);
        if (lines.length) out.push(lines.join("\n"));
        break;
      }
      case "table:table": {
        const md = markdownTable(tags(el, "table:table-row").map(tableCells));
        if (md) out.push(md);
        break;
      }
      default:
        out.push(...textBlocks(el, styles)); // sections, frames and the like hold blocks of their own
    }
  }
  return out;
}

/** A text table row's cells, each its paragraphs' text ("" for one a merge covers; a note's paragraphs stay in the note). */
const tableCells = (row: Element) =>
  [...row.children]
    .filter((c) => c.tagName === "table:table-cell" || c.tagName === "table:covered-table-cell")
    .map((c) =>
      clean(
        [...c.children]
          .filter((p) => p.tagName === "text:p" || p.tagName === "text:h")
          .map(odfText)
          .join(" "),
      ),
    );

/** A date cell as an ISO date (with its time of day when it has one), whatever format the sheet shows it in. */
function isoDate(cell: Element): string | undefined {
  const m =
    cell.getAttribute("office:value-type") === "date" &&
    /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}:\d{2}))?/.exec(cell.getAttribute("office:date-value") ?? "");
  return m ? (m[2] && m[2] !== "00:00" ? `${m[1]} ${m[2]}` : m[1]) : undefined;
}

/** ODS tables as sheets, rows numbered as the spreadsheet numbers them (repeats counted). */
function odsSheets(body: Element): Sheet[] {
  return tags(body, "table:table").map((table) => {
    const rows: Sheet["rows"] = [];
    let n = 0;
    for (const row of tags(table, "table:table-row")) {
      const cells: string[] = [];
      const merged: number[] = [];
      for (const cell of [...row.children].filter((c) => c.tagName === "table:table-cell" || c.tagName === "table:covered-table-cell")) {
        const value = isoDate(cell) ?? clean(tags(cell, "text:p").map(odfText).join("\n"));
        const repeat = Number(cell.getAttribute("table:number-columns-repeated") ?? 1) || 1;
        if (value && Number(cell.getAttribute("table:number-columns-spanned") ?? 1) > 1) merged.push(cells.length);
        if (!value) cells.length += repeat > MAX_REPEAT ? 0 : repeat;
        else for (let i = 0; i < Math.min(repeat, MAX_REPEAT); i++) cells.push(value);
      }
      const repeat = Number(row.getAttribute("table:number-rows-repeated") ?? 1) || 1;
      const filled = cells.some((c) => c);
      for (let i = 0; i < (filled ? Math.min(repeat, MAX_REPEAT) : 1); i++)
        rows.push({ n: n + i + 1, cells: Array.from(cells, (c) => c ?? ""), merged });
      n += repeat;
    }
    return { name: table.getAttribute("table:name") ?? `Sheet ${rows.length}`, rows };
  });
}

/** ODP pages as slides: the title frame, the other frames' text, the speaker notes. */
/**
 * A text frame's paragraphs and lists as blocks, consecutive lists one block (LibreOffice splits one list into
 * several where its levels' styles change); undefined when its text is not in those.
 */
function frameBlocks(frame: Element, styles: ListStyles): string[] | undefined {
  const box = tags(frame, "draw:text-box")[0] ?? frame;
  const out: string[] = [];
  let list: string[] = [];
  const flush = () => {
    if (list.length) out.push(list.join("\n"));
    list = [];
  };
  for (const el of [...box.children]) {
    if (el.tagName === "text:list") list.push(...listLines(el, styles, 0, null));
    else if (el.tagName === "text:p" || el.tagName === "text:h") {
      flush();
      const t = clean(odfText(el));
      if (t) out.push(t);
    }
  }
  flush();
  return out.length ? out : undefined;
}

/** Font sizes (points) of the automatic text and paragraph styles, by style name. */
function fontSizes(content: Document): Map<string, number> {
  const out = new Map<string, number>();
  for (const style of tags(content, "style:style")) {
    const size = /^([\d.]+)pt$/.exec(tags(style, "style:text-properties")[0]?.getAttribute("fo:font-size") ?? "")?.[1];
    if (size) out.set(style.getAttribute("style:name") ?? "", Number(size));
  }
  return out;
}

/** A text frame's largest font size (points) and how far down the page it sits, for titleBoxIndex. */
function frameBox(frame: Element, sizes: Map<string, number>): { points: number; y: number } {
  const named = [...tags(frame, "text:span"), ...tags(frame, "text:p")].map((e) => sizes.get(e.getAttribute("text:style-name") ?? "") ?? 0);
  const y = Number.parseFloat(frame.getAttribute("svg:y") ?? "");
  return { points: Math.max(0, ...named), y: Number.isFinite(y) ? y : Number.POSITIVE_INFINITY };
}

function odpSlides(body: Element, styles: ListStyles, sizes: Map<string, number>): Slide[] {
  return tags(body, "draw:page").map((page) => {
    let title = "";
    const text: string[] = [];
    const frames = [...page.children].filter((c) => c.tagName === "draw:frame" || c.tagName === "draw:custom-shape");
    // No title placeholder: the topmost large text box is the title, as for PPTX.
    const hasText = (f: Element) => !tags(f, "table:table")[0] && tags(f, "text:p").some((p) => clean(odfText(p)));
    const boxes = frames.filter((f) => hasText(f) && !f.getAttribute("presentation:class"));
    const titleFrame = frames.some((f) => f.getAttribute("presentation:class") === "title" && hasText(f))
      ? undefined
      : boxes[titleBoxIndex(boxes.map((f) => frameBox(f, sizes))) ?? -1];
    for (const frame of frames) {
      const table = tags(frame, "table:table")[0];
      if (table) {
        const md = markdownTable(tags(table, "table:table-row").map((r) => tags(r, "table:table-cell").map((c) => clean(odfText(c)))));
        if (md) text.push(md);
        continue;
      }
      const paras = tags(frame, "text:p")
        .map((p) => clean(odfText(p)))
        .filter(Boolean);
      if (!title && (frame === titleFrame || frame.getAttribute("presentation:class") === "title")) title = paras.join(" ");
      else text.push(...(frameBlocks(frame, styles) ?? paras));
    }
    // The notes page also holds the slide image and a page-number field: only its notes frame is the notes.
    const notes = tags(page, "presentation:notes")
      .flatMap((n) => tags(n, "draw:frame").filter((f) => f.getAttribute("presentation:class") === "notes"))
      .flatMap((f) => tags(f, "text:p"))
      .map((p) => clean(odfText(p)))
      .filter(Boolean);
    return { title, body: text, notes };
  });
}

/**
 * ODT, ODS, ODP (OpenDocument, what LibreOffice writes) → Markdown, tables like XLSX, slides like PPTX. The kind
 * comes from the archive's `mimetype` part, not the extension. JSZip + linkedom over content.xml.
 */
export async function parseOpenDocument(data: Uint8Array, filename: string, opts?: ParseOptions): Promise<ParsedDocument> {
  const limits = resolveLimits(opts);
  const archive = await openArchive(data, filename, limits, "OpenDocument", opts?.signal);
  const mimetype = (await archive.text("mimetype"))?.trim();
  const content = await archive.xml("content.xml");
  const kind = (Object.keys(MIME) as (keyof typeof MIME)[]).find((k) => MIME[k] === mimetype);
  if (!kind || !content) {
    throw new AppError("parse_failed", `"${filename}" is a ZIP archive but not an OpenDocument text, spreadsheet or presentation.`);
  }
  const meta = await archive.xml("meta.xml");
  const metaTitle = (meta && tags(meta, "dc:title")[0]?.textContent?.trim()) || undefined;
  const body = tags(content, `office:${kind}`)[0];
  if (!body) throw new AppError("parse_failed", `"${filename}" has no ${kind} body.`);
  const fallbackTitle = path.basename(filename).replace(/\.[^.]+$/, "") || filename;
  if (kind === "presentation") {
    const slides = odpSlides(body, listStyles(content, await archive.xml("styles.xml")), fontSizes(content));
    return { ...slidesToDocument(slides, filename, opts), title: metaTitle ?? slides.find((s) => s.title)?.title, mimeType: MIME[kind] };
  }
  if (kind === "spreadsheet") {
    return { text: sheetsToText(odsSheets(body), filename, limits), title: metaTitle ?? fallbackTitle, mimeType: MIME[kind] };
  }
  const text = textBlocks(body, listStyles(content, await archive.xml("styles.xml"))).join("\n\n");
  checkTextSize(text, filename, limits);
  if (!text.trim()) throw new AppError("parse_failed", `"${filename}": this document has no text.`);
  return { text, title: metaTitle ?? markdownTitle(text), mimeType: MIME[kind] };
}
