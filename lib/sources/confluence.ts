/**
 * Confluence (Cloud REST API v2, or Data Center REST v1): the pages and blog posts of the chosen spaces, each one
 * document as Confluence renders it (view) turned into Markdown, headed by its place ("Space › Parent › Page"); the
 * attachments of each page or post the parsers read, each a document of its own. An item's "Original" is its page
 * on the site. Cloud: Basic auth with the account's e-mail and an API token (./confluence-cloud.ts); Data Center: a
 * personal access token as Bearer (./confluence-dc.ts); both read through confluence.js over one transport
 * (./confluence-api.ts) that sends every request through ./sdk-fetch.ts (public-address rule, redirects kept to the
 * site, size cap, 429 waited out as Retry-After says) and checks each answer against the SDK's own schema.
 *
 * Each sync lists the spaces' pages and posts (sorted by modification, following `_links.next`): ids, titles,
 * parents and version numbers, no bodies. An item whose version and place are those indexed is kept without a
 * request; only the others' bodies (and their attachments' listings) are read, and an attachment is downloaded only
 * when its version changed. What the listing no longer holds (deleted, trashed, its view permission withdrawn) loses
 * its documents; so does an item listed but gone when read. A 401 stops the sync keeping every document; a listing
 * past SOURCE_MAX_LIST_PAGES answers, or repeating its position, fails it.
 */
import { parseHTML } from "linkedom";
import { exceedsNesting } from "@/lib/parse/depth";
import { DEFAULT_PARSE_LIMITS } from "@/lib/parse/limits";
import { htmlToMarkdown } from "@/lib/parse/markdown";
import type { ConfluenceApi, ConfluenceItem } from "./confluence-api";
import { cloudApi } from "./confluence-cloud";
import { dataCenterApi } from "./confluence-dc";
import { type Connector, readable } from "./engine";
import { overLimit } from "./http";
import type { SourceConfig } from "./schema";
import { CredentialRefused, ItemGone, titlesDownTo } from "./tree";

type ConfluenceConfig = Extract<SourceConfig, { kind: "confluence" }>;

const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

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

export const confluenceConnector: Connector = async (ctx) => {
  const config = ctx.source.config as ConfluenceConfig;
  const token = ctx.secrets.token;
  if (!token) throw new Error("this source has no API token");
  let requests = 0;
  const reads = { url: config.url, spaces: config.spaces, token, maxAnswerBytes: MAX_ANSWER_BYTES, onRequest: () => requests++ };
  const api: ConfluenceApi =
    config.deployment === "data-center" ? dataCenterApi(ctx, reads) : cloudApi(ctx, { ...reads, username: config.username ?? "" });

  const { items, spaceNames } = await api.list();
  const byId = new Map(items.filter((i) => i.type === "page").map((i) => [i.id, i]));
  /** "Space › Grandparent › Parent › Page" through the listed pages above it (a cycle or a deep chain cut). */
  const pathOf = (item: ConfluenceItem) => {
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
      const html = await api.view(item);
      // The item's own title is the document's (front matter); its heading is the path to it.
      const md = `---\ntitle: ${JSON.stringify(item.title)}\n---\n\n# ${heading.replace(/^[#\s]+/, "")}\n\n${viewToMarkdown(html)}\n`;
      const url = api.onSite(item.webui)?.href ?? "";
      await ctx.ingest({
        key,
        url,
        name: `${item.title.replace(/[\\/:*?"<>|]+/g, " ").slice(0, 120)}.md`,
        data: Buffer.from(md, "utf8"),
        version,
      });
      for (const a of await api.attachments(item)) {
        const name = a.title;
        const attKey = `att:${key}:${a.id}`;
        if (!readable(name)) continue;
        const attVersion = String(a.version);
        if (ctx.previous.get(attKey)?.documentId && ctx.previous.get(attKey)?.version === attVersion) {
          ctx.keep(attKey);
          continue;
        }
        if (a.size !== undefined && a.size > ctx.maxBytes) {
          ctx.fail(attKey, overLimit(a.size, ctx.maxBytes));
          continue;
        }
        let data: Uint8Array;
        try {
          data = await api.download(item, a);
        } catch (err) {
          if (err instanceof ItemGone) continue;
          if (err instanceof CredentialRefused) throw err;
          ctx.fail(attKey, err instanceof Error ? err.message : String(err));
          continue;
        }
        await ctx.ingest({ key: attKey, url: api.onSite(a.webui ?? "")?.href ?? url, name, data, version: attVersion });
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
