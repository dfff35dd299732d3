import TurndownService from "turndown";

const cellText = (cell: Element) => (cell.textContent ?? "").replace(/\s+/g, " ").trim();

/** Rows of cells as a GFM table (`| a | b |`), the first row its header; every row stays a readable line of text. */
export function markdownTable(rows: string[][]): string {
  const lines = rows
    .map((cells) => cells.map((c) => c.replace(/\s+/g, " ").trim().replace(/\|/g, "\\|")))
    .filter((cells) => cells.some((c) => c !== ""))
    .map((cells) => `| ${cells.join(" | ")} |`);
  if (lines.length === 0) return "";
  const width = lines[0].split(" | ").length;
  lines.splice(1, 0, `| ${Array(width).fill("---").join(" | ")} |`);
  return lines.join("\n");
}

/** A Markdown list item at a nesting depth: four spaces a level, enough to nest under "- " and "10. " alike. */
export const listItem = (depth: number, marker: string, text: string) => `${"    ".repeat(depth)}${marker} ${text}`;

/** One HTML table as GFM rows. */
function tableToMarkdown(table: Element): string {
  const rows = Array.from(table.querySelectorAll("tr")).filter((tr) => tr.closest("table") === table);
  const md = markdownTable(
    rows.map((tr) =>
      Array.from(tr.children)
        .filter((c) => /^(td|th)$/i.test(c.tagName))
        .map(cellText),
    ),
  );
  return md ? `\n\n${md}\n\n` : "";
}

/** Link targets kept in stored text: web, mail and relative links. Anything else (javascript:, data:, vbscript:…) loses its target. */
export function isSafeHref(href: string): boolean {
  // Browsers ignore ASCII whitespace and control characters inside a scheme ("java\tscript:").
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this strips
  const h = href.replace(/[\u0000-\u0020\u007f]+/g, "").toLowerCase();
  const scheme = /^([a-z][a-z0-9+.-]*):/.exec(h)?.[1];
  return scheme === undefined || scheme === "http" || scheme === "https" || scheme === "mailto";
}

/**
 * A footnote or endnote at the place it is referenced, its text in the sentence it belongs to (so a passage and its
 * note are found, chunked and cited together). One form for every format that has notes (DOCX, ODT).
 */
export const noteAt = (kind: "Footnote" | "Endnote", label: string, text: string) =>
  ` [${kind} ${label}: ${text.replace(/\s+/g, " ").trim()}]`;

/**
 * Turndown's escapes of text that would start a block (a heading, list item, quote, rule) and nothing else: the
 * text keeps its own characters (`trip_id`, `[1]`) while a paragraph starting "2. " or "# " stays a paragraph.
 */
const escapeBlockStarts = (s: string) =>
  s
    .replace(/^(#{1,6}) /, "\\$1 ")
    .replace(/^([-+*]) /, "\\$1 ")
    .replace(/^(\d+)\. /, "$1\\. ")
    .replace(/^(=+|>|~~~)/, "\\$1");

/**
 * HTML → Markdown with ATX headings, tables as text rows, and no images, scripts or styles. `inlineEscapes: false`
 * escapes only what would start a block, for documents whose text is prose rather than Markdown (DOCX).
 */
export function htmlToMarkdown(html: string, { inlineEscapes = true }: { inlineEscapes?: boolean } = {}): string {
  const td = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" });
  if (!inlineEscapes) td.escape = escapeBlockStarts;
  td.remove(["script", "style", "noscript", "iframe", "img", "svg", "canvas", "form", "button"] as TurndownService.Filter);
  td.addRule("unsafeLink", {
    filter: (node) => node.nodeName === "A" && !isSafeHref(node.getAttribute("href") ?? ""),
    replacement: (content) => content,
  });
  // Escapes that keep a paragraph from reading as a list or a heading ("2\\. Per diem") mean nothing after "## ".
  td.addRule("heading", {
    filter: ["h1", "h2", "h3", "h4", "h5", "h6"],
    replacement: (content, node) => {
      const text = content
        .replace(/\s+/g, " ")
        .trim()
        .replace(/^(\d+)\\([.)])/, "$1$2")
        .replace(/^\\([-+#>=])/, "$1");
      return text ? `\n\n${"#".repeat(Number(node.nodeName.charAt(1)))} ${text}\n\n` : "";
    },
  });
  td.addRule("table", { filter: "table", replacement: (_content, node) => tableToMarkdown(node as unknown as Element) });
  return td
    .turndown(html)
    .replace(/[ \t]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
