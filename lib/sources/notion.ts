/**
 * Notion: every page and database row shared with an internal integration, one Markdown document each
 * (./notion-markdown.ts), its title headed by the titles of the pages above it ("Parent › Page"); its "Original" is
 * the page's URL in Notion. Read through the official SDK (@notionhq/client, API version 2025-09-03) whose every
 * request goes through ./sdk-fetch.ts (public-address rule, size cap, 429 waited out as Retry-After says).
 *
 * Each sync lists the pages with search (filter: pages, sorted by last_edited_time, following next_cursor): that
 * listing carries each page's last_edited_time, title and parent, no content. A page whose edit time, title and
 * place are those indexed is kept without a request; only the others' blocks are read (children listed page by
 * page, nested blocks followed). A page no longer listed (deleted, in the trash, or no longer shared with the
 * integration) loses its document; one listed whose blocks answer 404 (its sharing withdrawn meanwhile) too. The
 * listing stops at SOURCE_MAX_LIST_PAGES answers or on a cursor it already followed, failing the sync, removing
 * nothing; a refused token (401) stops the sync keeping every document.
 */
import { APIResponseError, Client, isFullPage, LogLevel } from "@notionhq/client";
import type { PageObjectResponse } from "@notionhq/client/build/src/api-endpoints";
import { sourceLimits } from "@/lib/config";
import { markdownTable } from "@/lib/parse/markdown";
import type { Connector } from "./engine";
import { blocksToMarkdown, type NotionBlock, propertyText } from "./notion-markdown";
import type { SourceConfig } from "./schema";
import { sdkFetch } from "./sdk-fetch";
import { CredentialRefused, titlesDownTo } from "./tree";

type NotionConfig = Extract<SourceConfig, { kind: "notion" }>;

const PAGE = "page:";
/** The API's largest page of results. */
const PAGE_SIZE = 100;
/** An answer of the API (a listing, not a file) at most. */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;
/** Nesting followed (lists in toggles in lists…), and blocks read, per page at most. */
const MAX_DEPTH = 8;
const MAX_BLOCKS = 20_000;

/** The page's sharing was withdrawn (or it was deleted) between the listing and the read. */
class PageGone extends Error {}

interface Listed {
  id: string;
  title: string;
  parent: string | null;
  edited: string;
  url: string;
  row: PageObjectResponse["properties"] | null;
}

const titleOf = (p: PageObjectResponse) => {
  const title = Object.values(p.properties).find((v) => v.type === "title");
  return (title ? propertyText(title as unknown as Record<string, unknown>) : "").trim() || "Untitled";
};

export const notionConnector: Connector = async (ctx) => {
  const config = ctx.source.config as NotionConfig;
  const token = ctx.secrets.token;
  if (!token) throw new Error("this source has no integration token");
  const api = new URL(config.apiUrl);
  const { maxListPages, maxItems } = sourceLimits();
  let requests = 0;
  const client = new Client({
    auth: token,
    baseUrl: config.apiUrl.replace(/\/+$/, ""),
    fetch: sdkFetch(ctx, { origins: [api.origin], maxBytes: MAX_ANSWER_BYTES, onRequest: () => requests++ }),
    // Waiting out a 429 is sdkFetch's, the same for every service.
    retry: false,
    logLevel: LogLevel.ERROR,
    logger: () => {},
  });

  /** The SDK's call, its errors said in the source's words (never with the token). */
  async function call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      ctx.signal.throwIfAborted();
      if (err instanceof APIResponseError) {
        if (err.status === 401)
          throw new CredentialRefused(
            "Notion refused the integration token (HTTP 401 unauthorized): it was revoked, or the integration removed; enter a new token",
          );
        if (err.status === 404) throw new PageGone(`${what}: not found, or no longer shared with the integration`);
        if (err.status === 429) throw new Error(`Notion kept answering HTTP 429 (rate limited) to ${what} after its Retry-After waits`);
        throw new Error(`Notion answered HTTP ${err.status} (${err.code}) to ${what}`);
      }
      throw err;
    }
  }

  // The listing: ids, edit times, titles and parents of every page shared with the integration.
  const listed = new Map<string, Listed>();
  const cursors = new Set<string>();
  let cursor: string | undefined;
  for (let n = 0; ; n++) {
    if (n >= maxListPages)
      throw new Error(`Notion's search did not end after ${maxListPages} pages (SOURCE_MAX_LIST_PAGES): nothing was removed`);
    const res = await call("search", () =>
      client.search({
        filter: { property: "object", value: "page" },
        sort: { timestamp: "last_edited_time", direction: "descending" },
        start_cursor: cursor,
        page_size: PAGE_SIZE,
      }),
    );
    for (const r of res.results) {
      if (!isFullPage(r) || r.in_trash) continue;
      const parent = r.parent.type === "page_id" ? r.parent.page_id : null;
      const row = r.parent.type === "data_source_id" || r.parent.type === "database_id" ? r.properties : null;
      const url = URL.parse(r.url)?.protocol === "https:" ? r.url : "";
      listed.set(r.id, { id: r.id, title: titleOf(r), parent, edited: r.last_edited_time, url, row });
      if (listed.size > maxItems)
        throw new Error(`Notion shares more than ${maxItems} pages with this integration (SOURCE_MAX_ITEMS): nothing was removed`);
    }
    if (!res.has_more || !res.next_cursor) break;
    if (cursors.has(res.next_cursor)) throw new Error(`Notion's search repeats a cursor after ${n + 1} pages: it would never end`);
    cursors.add(res.next_cursor);
    cursor = res.next_cursor;
  }

  /** "Grandparent › Parent › Page", through the listed pages above it (a cycle or a deep chain cut). */
  const pathOf = (p: Listed) => titlesDownTo(p, (x) => (x.parent ? listed.get(x.parent) : undefined)).join(" › ");

  /** A block's children, every page of them, nested blocks followed (not child pages: they are pages of their own). */
  async function childrenOf(id: string, depth: number, budget: { blocks: number }): Promise<NotionBlock[]> {
    const out: NotionBlock[] = [];
    let next: string | undefined;
    for (let n = 0; ; n++) {
      if (n >= maxListPages) throw new Error(`the block listing did not end after ${maxListPages} pages (SOURCE_MAX_LIST_PAGES)`);
      const res = await call("the page's blocks", () =>
        client.blocks.children.list({ block_id: id, start_cursor: next, page_size: PAGE_SIZE }),
      );
      for (const b of res.results as unknown as NotionBlock[]) {
        if (--budget.blocks < 0) throw new Error(`the page has more than ${MAX_BLOCKS} blocks`);
        if (b.has_children && depth < MAX_DEPTH && b.type !== "child_page" && b.type !== "child_database")
          b.children = await childrenOf(b.id, depth + 1, budget);
        out.push(b);
      }
      if (!res.has_more || !res.next_cursor || res.next_cursor === next) break;
      next = res.next_cursor;
    }
    return out;
  }

  let read = 0;
  for (const p of listed.values()) {
    const key = `${PAGE}${p.id}`;
    const heading = pathOf(p);
    const version = JSON.stringify({ edited: p.edited, heading });
    const was = ctx.previous.get(key);
    if (was?.documentId && was.version === version) {
      ctx.keep(key);
      continue;
    }
    try {
      read++;
      const blocks = await childrenOf(p.id, 0, { blocks: MAX_BLOCKS });
      const props = p.row
        ? Object.entries(p.row)
            .filter(([, v]) => v.type !== "title")
            .map(([name, v]) => [name, propertyText(v as unknown as Record<string, unknown>)])
            .filter(([, v]) => v !== "")
        : [];
      // The page's own title is the document's (front matter); its heading is the path to it.
      const parts = [
        `---\ntitle: ${JSON.stringify(p.title)}\n---`,
        `# ${heading}`,
        props.length ? markdownTable([["Property", "Value"], ...props]) : "",
        blocksToMarkdown(blocks),
      ];
      const data = Buffer.from(`${parts.filter(Boolean).join("\n\n")}\n`, "utf8");
      if (data.length > ctx.maxBytes)
        throw new Error(`its text is ${data.length} bytes, larger than the limit of ${ctx.maxBytes} bytes (SOURCE_MAX_BYTES)`);
      await ctx.ingest({ key, url: p.url, name: `${p.title.replace(/[\\/:*?"<>|]+/g, " ").slice(0, 120)}.md`, data, version });
    } catch (err) {
      ctx.signal.throwIfAborted();
      // Gone between the listing and the read: not kept, so its document goes with the walk's end.
      if (err instanceof PageGone) continue;
      if (err instanceof CredentialRefused) throw err;
      ctx.fail(key, err instanceof Error ? err.message : String(err));
    }
  }
  return { note: `${listed.size} pages shared, ${read} read (${requests} requests)` };
};
