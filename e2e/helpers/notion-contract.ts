/**
 * A contract server for the Notion API (version 2025-09-03), written from its public reference, for the Notion
 * source's tests (lib/sources/notion.test.ts, e2e/sources.spec.ts) driven through the official SDK
 * (@notionhq/client) pointed at it:
 * - authentication: https://developers.notion.com/reference/authentication (Bearer token; 401 `unauthorized`)
 * - versioning: https://developers.notion.com/reference/versioning (the Notion-Version header is required)
 * - search: https://developers.notion.com/reference/post-search (filter by object, sort by last_edited_time)
 * - pagination: https://developers.notion.com/reference/intro#pagination (start_cursor, next_cursor, has_more)
 * - block children: https://developers.notion.com/reference/get-block-children, block types:
 *   https://developers.notion.com/reference/block, rich text: https://developers.notion.com/reference/rich-text
 * - pages: https://developers.notion.com/reference/page (parent, properties, url, in_trash)
 * - errors and rate limits: https://developers.notion.com/reference/status-codes and
 *   https://developers.notion.com/reference/request-limits (429 `rate_limited` with Retry-After in seconds)
 * A page not shared with the integration is missing from search and answers 404 `object_not_found`, as the
 * reference says. Every request is recorded (method, URL, Authorization), so tests can tell what was fetched.
 */
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { withBody } from "./whole-request";

interface RichText {
  type: "text";
  text: { content: string; link: { url: string } | null };
  annotations: { bold: boolean; italic: boolean; strikethrough: boolean; underline: boolean; code: boolean; color: string };
  plain_text: string;
  href: string | null;
}
interface BlockSpec {
  type: string;
  /** The block's type object ({rich_text, checked…}). */
  value: Record<string, unknown>;
  children?: BlockSpec[];
}
interface PageSpec {
  id: string;
  title: string;
  /** A page under another page, a row of a data source, or at the workspace's top. */
  parent?: { page: string } | { dataSource: string };
  /** A row's other properties (name → a property value object of the reference). */
  properties?: Record<string, Record<string, unknown>>;
  blocks: BlockSpec[];
  /** Shared with the integration (unshared: missing from search, 404 on reads). */
  shared?: boolean;
  inTrash?: boolean;
  lastEdited?: string;
}

export interface NotionContract {
  origin: string;
  token: string;
  /** Every request: "METHOD /path?query", with the Authorization it carried and its body. */
  requests: { method: string; url: string; auth: string | undefined; body: string }[];
  pages: Map<string, PageSpec>;
  /** The next requests answered 429 with this Retry-After (one entry each, removed as used). */
  busy: string[];
  /** Search answers a page with one more cursor forever ("new"), the same cursor again ("same"), or a full page of new pages each time ("items"). */
  endless: "new" | "same" | "items" | null;
  /** Results per answer at most (a server may answer fewer than page_size). */
  pageSize: number;
  put(page: PageSpec): void;
  /** Edits a page: its last_edited_time moves on. */
  edit(id: string, change: Partial<PageSpec>): void;
  revoke(): void;
  /** A new token, valid from now on (the old one stays refused). */
  issue(token: string): void;
  close(): Promise<void>;
}

export const text = (content: string, extra: Partial<RichText["annotations"]> & { link?: string } = {}): RichText => {
  const { link, ...annotations } = extra;
  return {
    type: "text",
    text: { content, link: link ? { url: link } : null },
    annotations: { bold: false, italic: false, strikethrough: false, underline: false, code: false, color: "default", ...annotations },
    plain_text: content,
    href: link ?? null,
  };
};
const rich = (s: string | RichText[]) => (typeof s === "string" ? [text(s)] : s);
/** Blocks as the reference shows them. */
export const block = {
  p: (s: string | RichText[]): BlockSpec => ({ type: "paragraph", value: { rich_text: rich(s), color: "default" } }),
  h: (level: 1 | 2 | 3, s: string): BlockSpec => ({
    type: `heading_${level}`,
    value: { rich_text: rich(s), is_toggleable: false, color: "default" },
  }),
  bullet: (s: string, children?: BlockSpec[]): BlockSpec => ({
    type: "bulleted_list_item",
    value: { rich_text: rich(s), color: "default" },
    children,
  }),
  numbered: (s: string, children?: BlockSpec[]): BlockSpec => ({
    type: "numbered_list_item",
    value: { rich_text: rich(s), color: "default" },
    children,
  }),
  todo: (s: string, checked: boolean): BlockSpec => ({ type: "to_do", value: { rich_text: rich(s), checked, color: "default" } }),
  toggle: (s: string, children: BlockSpec[]): BlockSpec => ({ type: "toggle", value: { rich_text: rich(s), color: "default" }, children }),
  code: (language: string, s: string): BlockSpec => ({ type: "code", value: { rich_text: rich(s), language, caption: [] } }),
  quote: (s: string): BlockSpec => ({ type: "quote", value: { rich_text: rich(s), color: "default" } }),
  image: (url: string, caption: string): BlockSpec => ({
    type: "image",
    value: { type: "external", external: { url }, caption: rich(caption) },
  }),
  table: (rows: string[][]): BlockSpec => ({
    type: "table",
    value: { table_width: rows[0]?.length ?? 0, has_column_header: true, has_row_header: false },
    children: rows.map((cells) => ({ type: "table_row", value: { cells: cells.map((c) => rich(c)) } })),
  }),
};

const hex = (n: number) => n.toString(16).padStart(12, "0");
const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers }).end(JSON.stringify(body));
const error = (res: http.ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}) =>
  json(res, status, { object: "error", status, code, message, request_id: "00000000-0000-4000-8000-000000000000" }, headers);

export async function startNotionContract(token = "ntn_contract_token_0123456789", port = 0): Promise<NotionContract> {
  let clock = Date.parse("2026-01-05T09:00:00.000Z");
  const tick = () => {
    clock += 60_000;
    return new Date(clock).toISOString();
  };
  let valid = true;
  let blockSeq = 0;
  /** Block ids are made once per page version, so a child's id is stable between reads. */
  const blockIds = new Map<BlockSpec, string>();
  const blocksById = new Map<string, BlockSpec>();
  const idOf = (b: BlockSpec) => {
    let id = blockIds.get(b);
    if (!id) {
      id = `b10c0000-0000-4000-8000-${hex(++blockSeq)}`;
      blockIds.set(b, id);
      blocksById.set(id, b);
    }
    return id;
  };
  const state: Omit<NotionContract, "origin" | "close" | "put" | "edit" | "revoke" | "issue"> = {
    token,
    requests: [],
    pages: new Map(),
    busy: [],
    endless: null,
    pageSize: 100,
  };
  const pageUrl = (p: PageSpec) =>
    `https://www.notion.so/${p.title.replace(/[^\p{L}\p{N}]+/gu, "-").replace(/^-|-$/g, "")}-${p.id.replace(/-/g, "")}`;
  const pageObject = (p: PageSpec) => ({
    object: "page",
    id: p.id,
    created_time: "2026-01-05T09:00:00.000Z",
    last_edited_time: p.lastEdited,
    created_by: { object: "user", id: "u1" },
    last_edited_by: { object: "user", id: "u1" },
    cover: null,
    icon: null,
    parent: !p.parent
      ? { type: "workspace", workspace: true }
      : "page" in p.parent
        ? { type: "page_id", page_id: p.parent.page }
        : { type: "data_source_id", data_source_id: p.parent.dataSource, database_id: p.parent.dataSource },
    in_trash: !!p.inTrash,
    archived: !!p.inTrash,
    is_locked: false,
    properties: {
      ...(p.properties ?? {}),
      [p.parent && "dataSource" in p.parent ? "Name" : "title"]: { id: "title", type: "title", title: [text(p.title)] },
    },
    url: pageUrl(p),
    public_url: null,
  });
  const blockObject = (b: BlockSpec, parent: string) => ({
    object: "block",
    id: idOf(b),
    parent: { type: "block_id", block_id: parent },
    created_time: "2026-01-05T09:00:00.000Z",
    last_edited_time: "2026-01-05T09:00:00.000Z",
    has_children: !!b.children?.length,
    in_trash: false,
    archived: false,
    type: b.type,
    [b.type]: b.value,
  });
  const visible = (p: PageSpec | undefined): p is PageSpec => !!p && p.shared !== false;
  /** One answer of a paginated list, its cursor the offset (opaque to the client). */
  const paginate = <T>(items: T[], cursor: string | null, size: number) => {
    const start = cursor ? Number(Buffer.from(cursor, "base64url").toString()) : 0;
    const end = start + Math.min(size, state.pageSize);
    const more = end < items.length;
    return { results: items.slice(start, end), next_cursor: more ? Buffer.from(String(end)).toString("base64url") : null, has_more: more };
  };

  const server = http.createServer(
    withBody((req, res, body) => {
      const url = new URL(req.url ?? "/", "http://x");
      state.requests.push({ method: req.method ?? "", url: req.url ?? "", auth: req.headers.authorization, body });
      const busy = state.busy.shift();
      if (busy !== undefined)
        return error(res, 429, "rate_limited", "You have been rate limited. Please try again in a few minutes.", { "retry-after": busy });
      if (!valid || req.headers.authorization !== `Bearer ${state.token}`) return error(res, 401, "unauthorized", "API token is invalid.");
      if (!req.headers["notion-version"]) return error(res, 400, "missing_version", "Notion-Version header failed validation.");
      if (req.method === "POST" && url.pathname === "/v1/search") {
        const q = JSON.parse(body || "{}") as {
          filter?: { value?: string };
          sort?: { direction?: string };
          start_cursor?: string;
          page_size?: number;
        };
        if (state.endless) {
          const n = state.endless === "same" ? 1 : state.requests.length;
          const invented = (i: number): PageSpec => ({
            id: `${String(n).padStart(8, "0")}-0000-4000-8000-${String(i).padStart(12, "0")}`,
            title: `Invented ${n}.${i} ${"x".repeat(200)}`,
            lastEdited: "2026-01-05T09:00:00.000Z",
            blocks: [],
          });
          const size = Math.min(q.page_size ?? 100, state.pageSize);
          return json(res, 200, {
            object: "list",
            results: state.endless === "items" ? Array.from({ length: size }, (_, i) => pageObject(invented(i))) : [],
            next_cursor: `c${n}`,
            has_more: true,
            type: "page_or_data_source",
            page_or_data_source: {},
          });
        }
        const pages = q.filter?.value === "data_source" ? [] : [...state.pages.values()].filter((p) => visible(p) && !p.inTrash);
        pages.sort((a, b) => (a.lastEdited! < b.lastEdited! ? 1 : -1) * (q.sort?.direction === "ascending" ? -1 : 1));
        const page = paginate(pages.map(pageObject), q.start_cursor ?? null, Math.min(q.page_size ?? 100, 100));
        return json(res, 200, { object: "list", ...page, type: "page_or_data_source", page_or_data_source: {} });
      }
      const children = /^\/v1\/blocks\/([^/]+)\/children$/.exec(url.pathname);
      if (req.method === "GET" && children) {
        const id = decodeURIComponent(children[1]);
        const page = state.pages.get(id);
        const list = visible(page) && !page.inTrash ? page.blocks : blocksById.get(id)?.children;
        if (!list || (page && (!visible(page) || page.inTrash)))
          return error(
            res,
            404,
            "object_not_found",
            `Could not find block with ID: ${id}. Make sure the relevant pages and databases are shared with your integration.`,
          );
        const size = Math.min(Number(url.searchParams.get("page_size") ?? 100), 100);
        const answer = paginate(
          list.map((b) => blockObject(b, id)),
          url.searchParams.get("start_cursor"),
          size,
        );
        return json(res, 200, { object: "list", ...answer, type: "block", block: {} });
      }
      return error(res, 400, "invalid_request_url", "Invalid request URL.");
    }),
  );
  server.listen(port, "127.0.0.1");
  await once(server, "listening");
  return Object.assign(state, {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    put(page: PageSpec) {
      state.pages.set(page.id, { shared: true, ...page, lastEdited: tick() });
    },
    edit(id: string, change: Partial<PageSpec>) {
      const before = state.pages.get(id);
      if (!before) throw new Error(`no page ${id}`);
      state.pages.set(id, { ...before, ...change, lastEdited: tick() });
    },
    revoke() {
      valid = false;
    },
    issue(token: string) {
      state.token = token;
      valid = true;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
