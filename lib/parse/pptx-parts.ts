/**
 * The parts of a PPTX slide beyond plain paragraphs: its paragraphs as list items (bullets, 1./2./3. numbering,
 * nesting by level), the title when it is a text box rather than a placeholder, and a chart as a small table.
 */
import { listItem, markdownTable } from "./markdown";
import { tags } from "./zip";

const child = (el: Element, name: string) => [...el.children].find((c) => c.tagName === name);

/** A paragraph's runs' text, spaces collapsed. */
export const paragraphText = (p: Element) =>
  tags(p, "a:t")
    .map((t) => t.textContent ?? "")
    .join("")
    .replace(/\s+/g, " ")
    .trim();

/**
 * A text body as blocks: plain paragraphs each a block, consecutive list items one block of Markdown list lines.
 * A paragraph is a list item when it names a bullet (a:buChar) or numbering (a:buAutoNum), or, in a body
 * placeholder (whose bullets come from the layout), unless it says a:buNone.
 */
export function textBlocks(body: Element, bulletedByLayout: boolean): string[] {
  const out: string[] = [];
  let list: string[] = [];
  const counters: (number | undefined)[] = [];
  const flush = () => {
    if (list.length) out.push(list.join("\n"));
    list = [];
    counters.length = 0;
  };
  for (const p of tags(body, "a:p")) {
    const text = paragraphText(p);
    if (!text) continue;
    const pPr = child(p, "a:pPr");
    const level = Math.min(8, Math.max(0, Number(pPr?.getAttribute("lvl") ?? 0) || 0));
    const autoNum = pPr && child(pPr, "a:buAutoNum");
    const bullet = pPr && (child(pPr, "a:buChar") || child(pPr, "a:buBlip"));
    const none = pPr && child(pPr, "a:buNone");
    if (!autoNum && !bullet && (none || !bulletedByLayout)) {
      flush();
      out.push(text);
      continue;
    }
    counters.length = level + 1;
    let marker = "-";
    if (autoNum) {
      const last = counters[level];
      const n = last === undefined ? Number(autoNum.getAttribute("startAt") ?? 1) || 1 : last + 1;
      counters[level] = n;
      marker = `${n}.`;
    } else counters[level] = undefined;
    list.push(listItem(level, marker, text));
  }
  flush();
  return out;
}

/** The largest font size (hundredths of a point) a shape's text is set in, 0 when it names none. */
function fontSize(shape: Element): number {
  return Math.max(0, ...tags(shape, "a:rPr").map((r) => Number(r.getAttribute("sz") ?? 0) || 0));
}

/** How far down the slide a shape sits (EMU), Infinity when it has no position. */
function top(shape: Element): number {
  const off = tags(shape, "a:off")[0];
  return off ? Number(off.getAttribute("y") ?? Number.POSITIVE_INFINITY) : Number.POSITIVE_INFINITY;
}

/** A title's size in points: 24, the smallest a title placeholder of the default templates uses. */
const TITLE_POINTS = 24;

/**
 * Which text box is the slide's title when no title placeholder is (its index): the topmost (`y`) of the boxes set
 * large (`points`: 24 pt or more, or larger than every other text on the slide), as pptxgenjs and many templates
 * write titles. Shared by PPTX and ODP.
 */
export function titleBoxIndex(boxes: { points: number; y: number }[]): number | undefined {
  const large = boxes
    .map((b, i) => ({ ...b, i }))
    .filter(({ points }, i) => points >= TITLE_POINTS || (points > 0 && boxes.every((o, j) => j === i || o.points < points)));
  return large.sort((a, b) => a.y - b.y)[0]?.i;
}

/** The PPTX text box that is the slide's title when no title placeholder is (see titleBoxIndex). */
export function titleBox(shapes: Element[]): Element | undefined {
  const i = titleBoxIndex(shapes.map((s) => ({ points: fontSize(s) / 100, y: top(s) })));
  return i === undefined ? undefined : shapes[i];
}

/** A series part's points (c:pt idx → c:v) in order; of a multi-level category, the level nearest the axis. */
function points(part: Element | undefined): string[] {
  if (!part) return [];
  const scope = tags(part, "c:lvl")[0] ?? part;
  const out: string[] = [];
  for (const pt of tags(scope, "c:pt")) out[Number(pt.getAttribute("idx") ?? out.length)] = tags(pt, "c:v")[0]?.textContent?.trim() ?? "";
  return Array.from(out, (v) => v ?? "");
}

/** A chart part (c:chartSpace) as its title and a table: a row per category, a column per series. */
export function chartBlocks(chart: Document): string[] {
  const titleEl = tags(chart, "c:title").find((t) => t.parentElement?.tagName === "c:chart");
  const title = titleEl ? tags(titleEl, "a:p").map(paragraphText).filter(Boolean).join(" ") : "";
  const series = tags(chart, "c:ser").map((ser, i) => ({
    name: points(child(ser, "c:tx")).join(" ") || `Series ${i + 1}`,
    categories: points(child(ser, "c:cat") ?? child(ser, "c:xVal")),
    values: points(child(ser, "c:val") ?? child(ser, "c:yVal")),
  }));
  if (series.length === 0) return title ? [`Chart: ${title}`] : [];
  const categories = series.find((s) => s.categories.length)?.categories ?? [];
  const count = Math.max(categories.length, ...series.map((s) => s.values.length));
  const rows = Array.from({ length: count }, (_, r) => [categories[r] ?? String(r + 1), ...series.map((s) => s.values[r] ?? "")]);
  const table = markdownTable([["", ...series.map((s) => s.name)], ...rows]);
  return [title ? `Chart: ${title}` : "Chart", table];
}
