/** A run of the document under one heading path; the heading line is its first line. */
export interface Section {
  start: number;
  end: number;
  headingPath: string[];
}

const FENCE_RE = /^ {0,3}(`{3,}|~{3,})/;
const ATX_RE = /^ {0,3}(#{1,6})(?:[ \t]+(.*))?$/;
/** A line styled as a heading by an attribute class instead of #s (`Leave policy {.h2}`). */
const CLASS_HEADING_RE = /^ {0,3}(\S.*?)[ \t]*\{[ \t]*\.h([1-6])[ \t]*\}[ \t]*$/;

/**
 * A heading's title as it goes into heading paths: no closing #s, no attribute block (`{#id .class}`),
 * no HTML (icons, anchors), whitespace collapsed.
 */
export function headingTitle(raw: string): string {
  return raw
    .replace(/(?:^|[ \t]+)#+[ \t]*$/, "")
    .replace(/[ \t]*\{[ \t]*[#.:][^{}]*\}[ \t]*$/, "")
    .replace(/<\/?[a-zA-Z][^<>]*>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

interface Heading {
  start: number;
  /** End of the heading line (before its newline). */
  lineEnd: number;
  level: number;
  path: string[];
}

/**
 * Splits Markdown-ish text at ATX headings (`#` … `######`, and lines styled `{.h2}`), ignoring lines inside
 * fenced code.
 * A heading with nothing under it but a deeper heading ("# Handbook" then "## Leave") is merged
 * into that child section, so no chunk holds a lone heading line.
 */
export function splitSections(text: string): Section[] {
  const headings = findHeadings(text);
  const sections: Section[] = [];
  if (headings.length === 0 || headings[0].start > 0) {
    sections.push({ start: 0, end: headings[0]?.start ?? text.length, headingPath: [] });
  }
  let pendingStart: number | undefined;
  headings.forEach((h, i) => {
    const next = headings[i + 1];
    const end = next?.start ?? text.length;
    const start = pendingStart ?? h.start;
    if (next && next.level > h.level && text.slice(h.lineEnd, end).trim() === "") {
      pendingStart = start;
      return;
    }
    pendingStart = undefined;
    sections.push({ start, end, headingPath: h.path });
  });
  return sections;
}

function findHeadings(text: string): Heading[] {
  const headings: Heading[] = [];
  const stack: { level: number; title: string }[] = [];
  let fence: string | undefined;
  let offset = 0;
  for (const rawLine of text.split("\n")) {
    const start = offset;
    offset += rawLine.length + 1;
    const line = rawLine.replace(/\r$/, "");
    const fenceMatch = FENCE_RE.exec(line);
    if (fence) {
      if (fenceMatch && fenceMatch[1][0] === fence[0] && fenceMatch[1].length >= fence.length && line.trim() === fenceMatch[1]) {
        fence = undefined;
      }
      continue;
    }
    if (fenceMatch) {
      fence = fenceMatch[1];
      continue;
    }
    const atx = ATX_RE.exec(line);
    const styled = atx ? null : CLASS_HEADING_RE.exec(line);
    if (!atx && !styled) continue;
    const level = atx ? atx[1].length : Number(styled![2]);
    const title = headingTitle(atx ? (atx[2] ?? "") : styled![1]);
    while (stack.length && stack[stack.length - 1].level >= level) stack.pop();
    stack.push({ level, title });
    headings.push({ start, lineEnd: start + rawLine.length, level, path: stack.map((s) => s.title).filter(Boolean) });
  }
  return headings;
}
