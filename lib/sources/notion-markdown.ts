/**
 * Notion's blocks as Markdown, the form the Markdown parser reads like an uploaded file: headings one level below
 * the page's title, paragraphs, nested bulleted, numbered and to-do lists, toggles (their summary, then what they
 * hold), code fences, quotes, callouts, tables as GFM tables, images by their caption (alt text); a database row's
 * properties as a table under its title. A page's text cannot start a heading or list of its own (a block start in
 * text is escaped), and only http(s) links are kept.
 */
import { isSafeHref, listItem, markdownTable } from "@/lib/parse/markdown";

interface RichText {
  plain_text?: string;
  href?: string | null;
}
export interface NotionBlock {
  id: string;
  type: string;
  has_children?: boolean;
  [type: string]: unknown;
  /** Filled in by the connector: the block's children, read with it. */
  children?: NotionBlock[];
}

/** Text that would start a block of its own (a heading, list item, quote, rule, fence) stays text. */
const asText = (s: string) => s.replace(/^(\s*)(#{1,6}\s|[-+*]\s|\d+\.\s|>|=+|`{3}|~{3})/, "$1\\$2");

/** Plain text of rich text, links kept as Markdown links when they are http(s). */
function plain(rt: unknown): string {
  if (!Array.isArray(rt)) return "";
  return (rt as RichText[])
    .map((r) => {
      const t = asText((r.plain_text ?? "").replace(/[\r\n]+/g, " "));
      return r.href && isSafeHref(r.href) && /^https?:/i.test(r.href) ? `[${t}](${r.href.replace(/[()\s]/g, encodeURIComponent)})` : t;
    })
    .join("");
}

/** A property value as text (titles, text, numbers, selects, dates, checkboxes, people, formulas…). */
export function propertyText(p: Record<string, unknown>): string {
  const v = p[p.type as string] as unknown;
  if (v === null || v === undefined) return "";
  switch (p.type) {
    case "title":
    case "rich_text":
      return plain(v);
    case "select":
    case "status":
      return String((v as { name?: string }).name ?? "");
    case "multi_select":
      return (v as { name?: string }[]).map((o) => o.name ?? "").join(", ");
    case "date": {
      const d = v as { start?: string; end?: string | null };
      return d.end ? `${d.start} → ${d.end}` : String(d.start ?? "");
    }
    case "checkbox":
      return v ? "✓" : "✗";
    case "people":
      return (v as { name?: string }[]).map((u) => u.name ?? "").join(", ");
    case "formula": {
      const f = v as Record<string, unknown>;
      return String(f[f.type as string] ?? "");
    }
    case "unique_id": {
      const u = v as { prefix?: string | null; number?: number };
      return `${u.prefix ? `${u.prefix}-` : ""}${u.number ?? ""}`;
    }
    case "relation":
    case "files":
    case "rollup":
      return "";
    default:
      return typeof v === "object" ? "" : String(v);
  }
}

const HEADING = { heading_1: "##", heading_2: "###", heading_3: "####" } as Record<string, string>;

/** Markdown of blocks at a list depth (nested list items are indented under their parent). */
export function blocksToMarkdown(blocks: NotionBlock[], depth = 0): string {
  const out: string[] = [];
  let number = 0;
  for (const b of blocks) {
    const value = (b[b.type] ?? {}) as Record<string, unknown>;
    const t = plain(value.rich_text);
    const kids = b.children ?? [];
    number = b.type === "numbered_list_item" ? number + 1 : 0;
    const nested = (d: number) => (kids.length ? `\n${blocksToMarkdown(kids, d)}` : "");
    switch (b.type) {
      case "heading_1":
      case "heading_2":
      case "heading_3":
        out.push(`${HEADING[b.type]} ${t}${nested(depth).replace(/^\n/, "\n\n")}`);
        break;
      case "bulleted_list_item":
        out.push(listItem(depth, "-", t) + nested(depth + 1));
        break;
      case "numbered_list_item":
        out.push(listItem(depth, `${number}.`, t) + nested(depth + 1));
        break;
      case "to_do":
        out.push(listItem(depth, value.checked ? "- [x]" : "- [ ]", t) + nested(depth + 1));
        break;
      case "toggle":
        out.push(listItem(depth, "-", t) + nested(depth + 1));
        break;
      case "code": {
        const code = ((value.rich_text as RichText[] | undefined) ?? []).map((r) => r.plain_text ?? "").join("");
        const fence = "`".repeat(Math.max(3, ...[...code.matchAll(/`+/g)].map((m) => m[0].length + 1)));
        out.push(`${fence}${String(value.language ?? "").replace(/[^\w+#-]/g, "")}\n${code}\n${fence}`);
        break;
      }
      case "quote":
      case "callout":
        out.push(`> ${t}${kids.length ? `\n>\n${blocksToMarkdown(kids, 0).replace(/^/gm, "> ")}` : ""}`);
        break;
      case "divider":
        out.push("---");
        break;
      case "image": {
        const caption = plain(value.caption);
        out.push(caption ? `*Image: ${caption}*` : "");
        break;
      }
      case "table": {
        const rows = kids
          .filter((r) => r.type === "table_row")
          .map((r) => ((r.table_row as { cells?: unknown[] })?.cells ?? []).map(plain));
        out.push(markdownTable(rows));
        break;
      }
      case "child_page":
      case "child_database":
        out.push(String((value as { title?: string }).title ?? ""));
        break;
      default:
        // Paragraphs, and any block with text of a type not named here (synced blocks, templates…).
        if (t) out.push(`${"    ".repeat(depth)}${t}`);
        if (kids.length) out.push(blocksToMarkdown(kids, depth));
    }
  }
  return out.filter((s) => s !== "").join(depth ? "\n" : "\n\n");
}
