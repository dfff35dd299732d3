/**
 * YAML front matter (`---` … `---` at the very start of a Markdown file), read for the few keys a document
 * record has room for. Not a YAML parser: `key: value` lines, quoted or not, and lists written inline
 * (`[a, b]`) or as `- item` lines; anything else is ignored.
 */
export interface FrontMatter {
  title?: string;
  tags?: string[];
  author?: string;
}

const BLOCK_RE = /^\uFEFF?---[ \t]*\n([\s\S]*?)\n(?:---|\.\.\.)[ \t]*(?:\n|$)/;

const unquote = (v: string) =>
  v
    .trim()
    .replace(/^(["'])(.*)\1$/, "$2")
    .trim();

function list(value: string, items: string[]): string[] {
  const v = value.trim();
  if (v.startsWith("[") && v.endsWith("]")) return v.slice(1, -1).split(",").map(unquote).filter(Boolean);
  if (v) return v.split(",").map(unquote).filter(Boolean);
  return items.map(unquote).filter(Boolean);
}

/** The front matter's metadata and the text after it (the whole text when there is none). */
export function frontMatter(text: string): { meta: FrontMatter; body: string } {
  const m = BLOCK_RE.exec(text);
  if (!m) return { meta: {}, body: text };
  const fields = new Map<string, { value: string; items: string[] }>();
  let current: { value: string; items: string[] } | undefined;
  for (const line of m[1].split("\n")) {
    const kv = /^([A-Za-z_][\w-]*)[ \t]*:(.*)$/.exec(line);
    if (kv) {
      current = { value: kv[2], items: [] };
      fields.set(kv[1].toLowerCase(), current);
    } else if (current && /^\s+-\s+/.test(line)) current.items.push(line.replace(/^\s+-\s+/, ""));
    else if (current && /^-\s+/.test(line)) current.items.push(line.replace(/^-\s+/, ""));
  }
  const meta: FrontMatter = {};
  const title = fields.get("title");
  if (title && unquote(title.value)) meta.title = unquote(title.value);
  const tags = fields.get("tags") ?? fields.get("keywords");
  if (tags) meta.tags = list(tags.value, tags.items);
  const author = fields.get("author");
  if (author && unquote(author.value)) meta.author = unquote(author.value);
  return { meta, body: text.slice(m[0].length) };
}
