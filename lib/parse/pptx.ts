import { AppError, type ParsedDocument } from "@/lib/types";
import { type ParseOptions, resolveLimits } from "./limits";
import { markdownTable } from "./markdown";
import { chartBlocks, paragraphText, textBlocks, titleBox } from "./pptx-parts";
import { type Archive, checkTextSize, openArchive, relationships, tags } from "./zip";

/** One slide's parts, as text. */
export interface Slide {
  title: string;
  body: string[];
  notes: string[];
}

/** The paragraphs (`a:p`) under an element, each its runs' text joined; empty ones dropped. */
const paragraphs = (root: Element | Document) => tags(root, "a:p").map(paragraphText).filter(Boolean);

/** Title placeholders of a slide (`<p:ph type="title">` or the title slide's `ctrTitle`). */
const TITLE_TYPES = new Set(["title", "ctrTitle"]);
/** Placeholders whose paragraphs are bullets unless they say otherwise (the layout's body style). */
const BODY_TYPES = new Set(["", "body", "obj"]);

/**
 * One slide: its title (the title placeholder, else the topmost large text box), its text boxes as paragraphs and
 * lists, its tables and charts (`charts`: the chart parts by relationship id) as tables, and its speaker notes.
 */
function readSlide(slide: Document, notes: Document | undefined, charts: Map<string, Document>): Slide {
  const shapes = tags(slide, "p:sp");
  const placeholder = shapes.find((s) => TITLE_TYPES.has(tags(s, "p:ph")[0]?.getAttribute("type") ?? "-") && paragraphs(s).length);
  const titleShape = placeholder ?? titleBox(shapes.filter((s) => !tags(s, "p:ph")[0] && paragraphs(s).length));
  const title = titleShape ? paragraphs(titleShape).join(" ") : "";
  const body: string[] = [];
  for (const shape of [...shapes, ...tags(slide, "p:graphicFrame")]) {
    if (shape === titleShape) continue;
    const table = tags(shape, "a:tbl")[0];
    const chartId = tags(shape, "c:chart")[0]?.getAttribute("r:id");
    if (table) {
      // A table stays rows of cells, its first row the header (a:tc spanned over by a merge is left blank).
      const rows = tags(table, "a:tr").map((tr) =>
        tags(tr, "a:tc").map((tc) => (tc.getAttribute("hMerge") || tc.getAttribute("vMerge") ? "" : paragraphs(tc).join(" "))),
      );
      const md = markdownTable(rows);
      if (md) body.push(md);
    } else if (chartId) {
      const chart = charts.get(chartId);
      if (chart) body.push(...chartBlocks(chart));
    } else {
      const ph = tags(shape, "p:ph")[0];
      body.push(...textBlocks(shape, !!ph && BODY_TYPES.has(ph.getAttribute("type") ?? "")));
    }
  }
  // The notes page repeats the slide image and a slide-number placeholder; only its body placeholder is the notes.
  const noteShapes = notes ? tags(notes, "p:sp").filter((s) => tags(s, "p:ph")[0]?.getAttribute("type") === "body") : [];
  return { title, body, notes: noteShapes.flatMap((s) => paragraphs(s)) };
}

/** The slides in presentation order (p:sldIdLst), with their notes pages. */
async function slides(archive: Archive, filename: string): Promise<Slide[]> {
  const presentation = await archive.xml("ppt/presentation.xml");
  if (!presentation)
    throw new AppError("parse_failed", `"${filename}" is a ZIP archive but not a PowerPoint presentation (no ppt/presentation.xml).`);
  const rels = await relationships(archive, "ppt/presentation.xml");
  const out: Slide[] = [];
  for (const id of tags(presentation, "p:sldId")) {
    const part = rels.get(id.getAttribute("r:id") ?? "")?.target;
    const slide = part ? await archive.xml(part) : undefined;
    if (!part || !slide) continue;
    const partRels = await relationships(archive, part);
    const notesPart = [...partRels.values()].find((r) => r.type.endsWith("/notesSlide"))?.target;
    const charts = new Map<string, Document>();
    for (const [id, r] of partRels) {
      const chart = r.type.endsWith("/chart") ? await archive.xml(r.target) : undefined;
      if (chart) charts.set(id, chart);
    }
    out.push(readSlide(slide, notesPart ? await archive.xml(notesPart) : undefined, charts));
  }
  return out;
}

/** The document title (docProps/core.xml dc:title), shared by the OOXML formats. */
export async function coreTitle(archive: Archive): Promise<string | undefined> {
  const core = await archive.xml("docProps/core.xml");
  const title = core && tags(core, "dc:title")[0]?.textContent?.trim();
  return title || undefined;
}

/**
 * Slides as sections: `# Slide N — title`, its text, then `## Notes` with the speaker notes; each slide is a page
 * (its number), so a citation says which slide. Shared by PPTX and ODP (lib/parse/opendocument.ts).
 */
export function slidesToDocument(list: Slide[], filename: string, opts?: ParseOptions): Pick<ParsedDocument, "text" | "pages"> {
  const limits = resolveLimits(opts);
  let text = "";
  const pages: { page: number; start: number }[] = [];
  list.forEach((s, i) => {
    const n = i + 1;
    const parts = [`# Slide ${n}${s.title ? ` — ${s.title}` : ""}`, ...s.body];
    if (s.notes.length) parts.push("## Notes", ...s.notes);
    if (!s.title && s.body.length === 0 && s.notes.length === 0) return;
    if (text) text += "\n\n";
    pages.push({ page: n, start: text.length });
    text += parts.join("\n\n");
    checkTextSize(text, filename, limits);
  });
  if (!text) throw new AppError("parse_failed", `"${filename}": this presentation has no text.`);
  return { text, pages };
}

/** PPTX → one section per slide with its title, text and speaker notes (JSZip + linkedom over the slide XML). */
export async function parsePptx(data: Uint8Array, filename: string, opts?: ParseOptions): Promise<ParsedDocument> {
  const archive = await openArchive(data, filename, resolveLimits(opts), "PowerPoint", opts?.signal);
  const list = await slides(archive, filename);
  return {
    ...slidesToDocument(list, filename, opts),
    title: (await coreTitle(archive)) ?? list.find((s) => s.title)?.title,
    mimeType: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  };
}
