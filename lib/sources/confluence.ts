/**
 * Confluence Cloud (REST API v2): the pages and blog posts of the chosen spaces, each one document as Confluence
 * renders it (`body-format=view`) turned into Markdown, headed by its place ("Space › Parent › Page"); the
 * attachments of each page or post the parsers read, each a document of its own. An item's "Original" is its page
 * in Confluence (`_links.webui` on the site). Basic auth with the account's e-mail and an API token.
 *
 * Read through confluence.js, whose v2 functions take a `Client` (its transport): this one sends every request
 * through ./sdk-fetch.ts (public-address rule, redirects kept to the site, size cap, 429 waited out as Retry-After
 * says) and checks each answer against the SDK's own schema.
 *
 * Each sync lists the spaces' pages and posts (sorted by modification, following the cursor in `_links.next`):
 * ids, titles, parents and version numbers, no bodies. An item whose version and place are those indexed is kept
 * without a request; only the others' bodies (and their attachments' listings) are read, and an attachment is
 * downloaded only when its version changed. What the listing no longer holds (deleted, trashed, its view
 * permission withdrawn) loses its documents; so does an item listed but 404 or 403 when read. A 401 stops the sync
 * keeping every document; a listing past SOURCE_MAX_LIST_PAGES answers, or repeating a cursor, fails it.
 */
import { createV1Client, createV2Client } from "confluence.js";
import { BufferSchema, type Client, type SendRequestOptions } from "confluence.js/core";
import { parseHTML } from "linkedom";
import { sourceLimits } from "@/lib/config";
import { exceedsNesting } from "@/lib/parse/depth";
import { DEFAULT_PARSE_LIMITS } from "@/lib/parse/limits";
import { htmlToMarkdown } from "@/lib/parse/markdown";
import { type Connector, readable } from "./engine";
import { overLimit } from "./http";
import type { SourceConfig } from "./schema";
import { sdkFetch } from "./sdk-fetch";
import { CredentialRefused, ItemGone, titlesDownTo } from "./tree";

type ConfluenceConfig = Extract<SourceConfig, { kind: "confluence" }>;

const LIMIT = 250;
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;
const MEDIA_HOST = "https://api.media.atlassian.com";

interface Item {
  type: "page" | "blogpost";
  id: string;
  title: string;
  parentId: string | null;
  version: number;
  webui: string;
  space: string;
}

/**
 * A rendered body as Markdown under the item's heading: its headings one level down, an image by its alt text, the
 * rest as the HTML parser's conversion makes it (tables as GFM tables, lists nested, code fenced, scripts dropped).
 */
function viewToMarkdown(html: string): string {
  const max = DEFAULT_PARSE_LIMITS.maxHtmlDepth;
  if (exceedsNesting(html, max)) throw new Error(`its body nests elements more than ${max} levels deep; it cannot be read safely`);
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
  for (const img of Array.from(document.querySelectorAll("img"))) {
    const alt = img.getAttribute("alt")?.trim();
    const em = document.createElement("em");
    em.textContent = alt ? `Image: ${alt}` : "";
    img.replaceWith(em);
  }
  for (const level of [5, 4, 3, 2, 1]) {
    for (const h of Array.from(document.querySelectorAll(`h${level}`))) {
      const lower = document.createElement(`h${level + 1}`);
      lower.append(...Array.from(h.childNodes));
      h.replaceWith(lower);
    }
  }
  return htmlToMarkdown(document.body.innerHTML);
}

/**
 * confluence.js's transport over sdkFetch: the SDK builds each request and its schema checks each answer; a download
 * (the SDK's BufferSchema) is read under SOURCE_MAX_BYTES, any other answer under MAX_ANSWER_BYTES.
 */
function transport(fetches: { api: typeof fetch; file: typeof fetch }, origin: string, prefix: string, authorization: string): Client {
  return {
    async sendRequest<T>(o: SendRequestOptions<T>): Promise<T> {
      const url = new URL(`${prefix}${o.url}`, origin);
      for (const [k, v] of Object.entries(o.searchParams ?? {}))
        for (const one of [v].flat()) if (one !== undefined && one !== null) url.searchParams.append(k, String(one));
      const file = (o.schema as unknown) === BufferSchema;
      const res = await (file ? fetches.file : fetches.api)(url, {
        method: o.method ?? "GET",
        headers: { accept: file ? "*/*" : "application/json", authorization },
      });
      const what = `${o.method ?? "GET"} ${url.pathname}`;
      if (res.status === 401)
        throw new CredentialRefused(
          "Confluence refused the credential (HTTP 401): the API token was revoked or expired, or the e-mail changed; enter the token again",
        );
      if (res.status === 403 || res.status === 404) throw new ItemGone(`HTTP ${res.status}: no longer readable with this credential`);
      if (res.status === 429) throw new Error(`Confluence kept answering HTTP 429 (rate limited) to ${what} after its Retry-After waits`);
      if (!res.ok) throw new Error(`Confluence answered HTTP ${res.status} to ${what}`);
      if (file) return new Uint8Array(await res.arrayBuffer()) as T;
      const data: unknown = await res.json().catch(() => {
        throw new Error(`Confluence's answer to ${what} is not JSON: is the URL the site (https://example.atlassian.net/wiki)?`);
      });
      if (!o.schema) return data as T;
      const parsed = o.schema.safeParse(data);
      if (!parsed.success) throw new Error(`Confluence's answer to ${what} is not what its API reference describes`);
      return parsed.data;
    },
  };
}

export const confluenceConnector: Connector = async (ctx) => {
  const config = ctx.source.config as ConfluenceConfig;
  const token = ctx.secrets.token;
  if (!token) throw new Error("this source has no API token");
  const site = new URL(config.url);
  // The API's paths start with /wiki; a site named with it (…/wiki) or without is the same site.
  const prefix = site.pathname.replace(/\/+$/, "").replace(/\/wiki$/, "");
  const wiki = `${site.origin}${prefix}/wiki`;
  const { maxListPages, maxItems } = sourceLimits();
  let requests = 0;
  const onRequest = () => requests++;
  const fetches = {
    api: sdkFetch(ctx, { origins: [site.origin], maxBytes: MAX_ANSWER_BYTES, onRequest }),
    // Confluence Cloud answers a download with a redirect to Atlassian's media host.
    file: sdkFetch(ctx, { origins: [site.origin, ...(site.hostname.endsWith(".atlassian.net") ? [MEDIA_HOST] : [])], onRequest }),
  };
  const authorization = `Basic ${Buffer.from(`${config.username}:${token}`, "utf8").toString("base64")}`;
  const client = transport(fetches, site.origin, prefix, authorization);
  const confluence = createV2Client(client);
  // v2 has no download: v1's (the same transport) redirects to the file.
  const files = createV1Client(client).contentAttachments;
  /** A link of the site's (a page's webui, an attachment's download), refused when it would lead elsewhere. */
  const onSite = (relative: string) => {
    const u = URL.parse(`${wiki}${relative.startsWith("/") ? "" : "/"}${relative}`);
    return u && u.origin === site.origin ? u : null;
  };

  /**
   * What `keep` makes of every result of a listing, following `_links.next`'s cursor (at most SOURCE_MAX_LIST_PAGES
   * answers, none repeated, at most SOURCE_MAX_ITEMS results kept): only the fields the sync uses are held, each
   * answer is dropped before the next is asked for.
   */
  async function all<T, R>(
    list: (cursor: string | undefined) => Promise<{ results?: T[]; _links?: { next?: string } }>,
    keep: (result: T) => R | null,
  ): Promise<R[]> {
    const out: R[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let n = 0; ; n++) {
      if (n >= maxListPages)
        throw new Error(`Confluence's listing did not end after ${maxListPages} pages (SOURCE_MAX_LIST_PAGES): nothing was removed`);
      const res = await list(cursor);
      for (const result of res.results ?? []) {
        const kept = keep(result);
        if (kept === null) continue;
        if (out.length >= maxItems) throw new Error(`Confluence lists more than ${maxItems} items (SOURCE_MAX_ITEMS): nothing was removed`);
        out.push(kept);
      }
      const next = res._links?.next ? (URL.parse(res._links.next, wiki)?.searchParams.get("cursor") ?? undefined) : undefined;
      if (!next) return out;
      if (seen.has(next)) throw new Error(`Confluence's listing repeats a cursor after ${n + 1} pages: it would never end`);
      seen.add(next);
      cursor = next;
    }
  }

  const spaces = await all(
    (cursor) => confluence.space.getSpaces({ keys: config.spaces, cursor, limit: LIMIT }),
    (s) => (s.key && config.spaces.includes(s.key) ? { key: s.key, id: s.id, name: s.name } : null),
  );
  const items: Item[] = [];
  const spaceNames = new Map<string, string>();
  for (const key of config.spaces) {
    const space = spaces.find((s) => s.key === key);
    if (!space?.id)
      throw new Error(`the space ${key} is not visible to this account (deleted, or its permission withdrawn): nothing was removed`);
    spaceNames.set(key, space.name ?? key);
    const id = Number(space.id);
    for (const type of ["page", "blogpost"] as const) {
      const keep = (p: {
        id?: string | number;
        title?: string;
        parentId?: string | number | null;
        version?: { number?: number } | null;
        _links?: { webui?: string } | null;
      }): Item | null =>
        p.id
          ? {
              type,
              id: String(p.id),
              title: p.title ?? String(p.id),
              parentId: p.parentId ? String(p.parentId) : null,
              version: p.version?.number ?? 0,
              webui: p._links?.webui ?? "",
              space: key,
            }
          : null;
      const listed =
        type === "page"
          ? await all(
              (cursor) => confluence.page.getPagesInSpace({ id, sort: "-modified-date", status: ["current"], cursor, limit: LIMIT }),
              keep,
            )
          : await all(
              (cursor) =>
                confluence.blogPost.getBlogPostsInSpace({ id, sort: "-modified-date", status: ["current"], cursor, limit: LIMIT }),
              keep,
            );
      if (items.length + listed.length > maxItems)
        throw new Error(`Confluence lists more than ${maxItems} items (SOURCE_MAX_ITEMS): nothing was removed`);
      for (const item of listed) items.push(item);
    }
  }

  const byId = new Map(items.filter((i) => i.type === "page").map((i) => [i.id, i]));
  /** "Space › Grandparent › Parent › Page" through the listed pages above it (a cycle or a deep chain cut). */
  const pathOf = (item: Item) => {
    const titles = titlesDownTo(item, (i) => (i.parentId ? byId.get(i.parentId) : undefined));
    return [spaceNames.get(item.space) ?? item.space, ...titles].join(" › ");
  };

  let read = 0;
  for (const item of items) {
    const key = `${item.type}:${item.id}`;
    const heading = pathOf(item);
    const version = JSON.stringify({ v: item.version, heading });
    const was = ctx.previous.get(key);
    if (was?.documentId && was.version === version) {
      ctx.keep(key);
      // Its attachments were read with it: unchanged with it.
      for (const k of ctx.previous.keys()) if (k.startsWith(`att:${key}:`)) ctx.keep(k);
      continue;
    }
    try {
      read++;
      const full =
        item.type === "page"
          ? await confluence.page.getPageById({ id: Number(item.id), bodyFormat: "view" })
          : await confluence.blogPost.getBlogPostById({ id: Number(item.id), bodyFormat: "view" });
      // The item's own title is the document's (front matter); its heading is the path to it.
      const md = `---\ntitle: ${JSON.stringify(item.title)}\n---\n\n# ${heading.replace(/^[#\s]+/, "")}\n\n${viewToMarkdown(full.body?.view?.value ?? "")}\n`;
      const url = onSite(item.webui)?.href ?? "";
      await ctx.ingest({
        key,
        url,
        name: `${item.title.replace(/[\\/:*?"<>|]+/g, " ").slice(0, 120)}.md`,
        data: Buffer.from(md, "utf8"),
        version,
      });
      const atts = await all(
        (cursor) =>
          item.type === "page"
            ? confluence.attachment.getPageAttachments({ id: Number(item.id), cursor, limit: LIMIT })
            : confluence.attachment.getBlogpostAttachments({ id: Number(item.id), cursor, limit: LIMIT }),
        (a) => (a.id ? { id: a.id, title: a.title, version: a.version, fileSize: a.fileSize, webuiLink: a.webuiLink } : null),
      );
      for (const a of atts) {
        const name = a.title ?? "";
        const attKey = `att:${key}:${a.id}`;
        if (!a.id || !readable(name)) continue;
        const attVersion = String(a.version?.number ?? 0);
        if (ctx.previous.get(attKey)?.documentId && ctx.previous.get(attKey)?.version === attVersion) {
          ctx.keep(attKey);
          continue;
        }
        if (a.fileSize !== undefined && a.fileSize > ctx.maxBytes) {
          ctx.fail(attKey, overLimit(a.fileSize, ctx.maxBytes));
          continue;
        }
        let data: Uint8Array;
        try {
          // The transport answers a download as bytes (a Uint8Array, never a bare ArrayBuffer).
          data = (await files.downloadAttatchment({ id: item.id, attachmentId: a.id, version: a.version?.number })) as Uint8Array;
        } catch (err) {
          if (err instanceof ItemGone) continue;
          if (err instanceof CredentialRefused) throw err;
          ctx.fail(attKey, err instanceof Error ? err.message : String(err));
          continue;
        }
        await ctx.ingest({ key: attKey, url: onSite(a.webuiLink ?? "")?.href ?? url, name, data, version: attVersion });
      }
    } catch (err) {
      ctx.signal.throwIfAborted();
      if (err instanceof CredentialRefused) throw err;
      // Gone between the listing and the read (deleted, its permission withdrawn): not kept, its documents go.
      if (err instanceof ItemGone) continue;
      ctx.fail(key, err instanceof Error ? err.message : String(err));
    }
  }
  return { note: `${items.length} pages and posts listed, ${read} read (${requests} requests)` };
};
