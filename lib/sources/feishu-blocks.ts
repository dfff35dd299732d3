/**
 * A Feishu/Lark docx document's blocks (docx/v1 "list blocks": a flat, paged list, each block naming its children)
 * as Markdown, so that it is indexed like an uploaded Markdown file: the title the top heading, heading1…9 the
 * levels under it, tables as tables (the first row their header), nested lists nested, code fenced, images by their
 * caption (alt text). A hostile document cannot nest deeper than MAX_DEPTH or make the walk loop (each block is
 * rendered once); text is kept on its line, so a text run cannot start a heading of its own.
 */

/** The fields of a block this reads (the SDK's type lists them all). */
export interface DocxBlock {
  block_id?: string;
  parent_id?: string;
  children?: string[];
  block_type: number;
  [field: string]: unknown;
}

interface TextElement {
  text_run?: { content?: string; text_element_style?: { link?: { url?: string }; inline_code?: boolean } };
  mention_doc?: { title?: string; url?: string };
  equation?: { content?: string };
}

const MAX_DEPTH = 40;
/** block_type → its field name (the docx block data structure: 2 text, 3…11 heading1…9, 12 bullet, …). */
const HEADING_FIRST = 3;
const HEADING_LAST = 11;
const TYPE = {
  page: 1,
  text: 2,
  bullet: 12,
  ordered: 13,
  code: 14,
  quote: 15,
  todo: 17,
  callout: 19,
  divider: 22,
  image: 27,
  table: 31,
  tableCell: 32,
  quoteContainer: 34,
} as const;

const FIELD: Record<number, string> = { 2: "text", 12: "bullet", 13: "ordered", 14: "code", 15: "quote", 17: "todo" };
for (let t = HEADING_FIRST; t <= HEADING_LAST; t++) FIELD[t] = `heading${t - HEADING_FIRST + 1}`;

const oneLine = (s: string) => s.replace(/\s+/g, " ");

function inline(elements: unknown): string {
  if (!Array.isArray(elements)) return "";
  return (elements as TextElement[])
    .map((e) => {
      if (e.text_run) {
        const text = oneLine(e.text_run.content ?? "");
        const url = e.text_run.text_element_style?.link?.url;
        const safe = url && /^https?:\/\//i.test(decodeURIComponent(url)) ? decodeURIComponent(url) : null;
        return safe && text.trim() ? `[${text}](${safe.replace(/[()\s]/g, encodeURIComponent)})` : text;
      }
      if (e.mention_doc) return oneLine(e.mention_doc.title ?? "");
      if (e.equation) return oneLine(e.equation.content ?? "");
      return "";
    })
    .join("");
}

const elementsOf = (b: DocxBlock) => (b[FIELD[b.block_type]] as { elements?: unknown } | undefined)?.elements;
/** Text starting a line that Markdown would read as structure (a heading, quote, list, fence) is escaped. */
const plain = (s: string) => s.trim().replace(/^([#>`~=+-]|\d+[.)]\s|\*\s)/, "\\$1");
const cell = (s: string) => s.replace(/\|/g, "\\|").trim();

/** The document as Markdown: `# title`, then its blocks from the page block down. */
export function blocksToMarkdown(title: string, blocks: readonly DocxBlock[]): string {
  const byId = new Map<string, DocxBlock>();
  for (const b of blocks) if (b.block_id && !byId.has(b.block_id)) byId.set(b.block_id, b);
  const done = new Set<string>();
  const out: string[] = [`# ${oneLine(title).trim() || "Untitled"}`];
  let lastList = -1;

  const kids = (b: DocxBlock) =>
    (b.children ?? []).flatMap((id) => {
      const child = byId.get(id);
      if (!child || done.has(id)) return [];
      done.add(id);
      return [child];
    });

  /** A table cell's text: its blocks' text on one line. */
  const cellText = (b: DocxBlock, depth: number): string =>
    depth > MAX_DEPTH
      ? ""
      : kids(b)
          .map((c) => (elementsOf(c) ? inline(elementsOf(c)) : cellText(c, depth + 1)))
          .join(" ");

  function table(b: DocxBlock, depth: number) {
    const t = b.table as { cells?: string[]; property?: { row_size?: number; column_size?: number } } | undefined;
    const cols = Math.max(1, Math.min(t?.property?.column_size ?? 1, 100));
    const ids = t?.cells ?? b.children ?? [];
    const rows: string[][] = [];
    for (let i = 0; i < ids.length; i += cols) {
      rows.push(
        ids.slice(i, i + cols).map((id) => {
          const c = byId.get(id);
          if (!c || done.has(id)) return "";
          done.add(id);
          return cell(cellText(c, depth + 1));
        }),
      );
    }
    if (!rows.length) return;
    while (rows[0].length < cols) rows[0].push("");
    const line = (r: string[]) => `| ${r.join(" | ")} |`;
    out.push([line(rows[0]), line(rows[0].map(() => "---")), ...rows.slice(1).map(line)].join("\n"));
  }

  function list(b: DocxBlock, depth: number, indent: string) {
    const lines: string[] = [];
    const walk = (item: DocxBlock, d: number, pad: string) => {
      const todo = item.block_type === TYPE.todo;
      const checked = (item.todo as { style?: { done?: boolean } } | undefined)?.style?.done;
      const marker = item.block_type === TYPE.ordered ? "1." : todo ? (checked ? "- [x]" : "- [ ]") : "-";
      lines.push(`${pad}${marker} ${plain(inline(elementsOf(item)))}`);
      if (d < MAX_DEPTH) for (const c of kids(item)) walk(c, d + 1, `${pad}   `);
    };
    walk(b, depth, indent);
    // Each item is a block of its own: the items in a row make one list.
    if (lastList >= 0 && lastList === out.length - 1) out[lastList] += `\n${lines.join("\n")}`;
    else out.push(lines.join("\n"));
    lastList = out.length - 1;
  }

  function block(b: DocxBlock, depth: number) {
    if (depth > MAX_DEPTH) return;
    const t = b.block_type;
    if (t >= HEADING_FIRST && t <= HEADING_LAST) {
      const text = plain(inline(elementsOf(b)));
      if (text) out.push(`${"#".repeat(Math.min(6, t - HEADING_FIRST + 2))} ${text}`);
    } else if (t === TYPE.text) {
      const text = plain(inline(elementsOf(b)));
      if (text) out.push(text);
    } else if (t === TYPE.bullet || t === TYPE.ordered || t === TYPE.todo) {
      list(b, depth, "");
      return;
    } else if (t === TYPE.code) {
      const raw = ((elementsOf(b) as TextElement[] | undefined) ?? []).map((e) => e.text_run?.content ?? "").join("");
      const fence = "`".repeat(Math.max(3, ...[...raw.matchAll(/`+/g)].map((m) => m[0].length + 1)));
      out.push(`${fence}\n${raw.replace(/\n$/, "")}\n${fence}`);
    } else if (t === TYPE.quote) {
      const text = inline(elementsOf(b)).trim();
      if (text) out.push(`> ${text}`);
    } else if (t === TYPE.divider) {
      out.push("***");
    } else if (t === TYPE.image) {
      const alt = oneLine((b.image as { caption?: { content?: string } } | undefined)?.caption?.content ?? "").trim();
      if (alt) out.push(`![${alt.replace(/[[\]]/g, "")}](#image)`);
    } else if (t === TYPE.table) {
      table(b, depth);
      return;
    }
    // Containers (the page, callouts, quote containers, grids) and any block with children: their children in order.
    const quoted = t === TYPE.callout || t === TYPE.quoteContainer;
    const start = out.length;
    for (const c of kids(b)) block(c, depth + 1);
    if (quoted) for (let i = start; i < out.length; i++) out[i] = out[i].replace(/^/gm, "> ");
  }

  const page = blocks.find((b) => b.block_type === TYPE.page) ?? blocks[0];
  if (page?.block_id) {
    done.add(page.block_id);
    block(page, 0);
  }
  return `${out.join("\n\n")}\n`;
}
