import TurndownService from "turndown";

const cellText = (cell: Element) => (cell.textContent ?? "").replace(/\s+/g, " ").trim().replace(/\|/g, "\\|");

/** One table as GFM rows (`| a | b |`), so every row stays a readable line of text. */
function tableToMarkdown(table: Element): string {
  const rows = Array.from(table.querySelectorAll("tr")).filter((tr) => tr.closest("table") === table);
  const lines = rows
    .map((tr) =>
      Array.from(tr.children)
        .filter((c) => /^(td|th)$/i.test(c.tagName))
        .map(cellText),
    )
    .filter((cells) => cells.some((c) => c !== ""))
    .map((cells) => `| ${cells.join(" | ")} |`);
  if (lines.length === 0) return "";
  const width = lines[0].split(" | ").length;
  lines.splice(1, 0, `| ${Array(width).fill("---").join(" | ")} |`);
  return `\n\n${lines.join("\n")}\n\n`;
}

/** Link targets kept in stored text: web, mail and relative links. Anything else (javascript:, data:, vbscript:…) loses its target. */
export function isSafeHref(href: string): boolean {
  // Browsers ignore ASCII whitespace and control characters inside a scheme ("java\tscript:").
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this strips
  const h = href.replace(/[\u0000-\u0020\u007f]+/g, "").toLowerCase();
  const scheme = /^([a-z][a-z0-9+.-]*):/.exec(h)?.[1];
  return scheme === undefined || scheme === "http" || scheme === "https" || scheme === "mailto";
}

/** HTML → Markdown with ATX headings, tables as text rows, and no images, scripts or styles. */
export function htmlToMarkdown(html: string): string {
  const td = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" });
  td.remove(["script", "style", "noscript", "iframe", "img", "svg", "canvas", "form", "button"] as TurndownService.Filter);
  td.addRule("unsafeLink", {
    filter: (node) => node.nodeName === "A" && !isSafeHref(node.getAttribute("href") ?? ""),
    replacement: (content) => content,
  });
  td.addRule("table", { filter: "table", replacement: (_content, node) => tableToMarkdown(node as unknown as Element) });
  return td
    .turndown(html)
    .replace(/[ \t]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
