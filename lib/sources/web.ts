/**
 * Web sources: one page, a sitemap's pages, or a crawl within the start URL's host and path prefix (depth and
 * page limits), robots.txt obeyed (robots-parser), one request at a time with a pause between (robots.txt's
 * Crawl-delay when longer), pages revalidated with ETag / Last-Modified. Pages go through the HTML parser
 * (Readability), and a page counts as changed only when its main text does; files they link to on the same host
 * (PDF, DOCX…) are ingested too. Every request goes through ./http.ts (public addresses only, unless an admin
 * allows the host). What a crawl holds stays bounded whatever a site serves: the frontier never holds more URLs than
 * the crawl may request (maxPages), a page keeps at most MAX_LINKS of its links (those on its own host), and a sitemap
 * index leads to MAX_SITEMAPS sitemaps at most.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { parseHTML } from "linkedom";
import robotsParser from "robots-parser";
import { sha256 } from "@/lib/ingest";
import { parseDocument } from "@/lib/parse";
import { extensionOf } from "@/lib/parse/formats";
import type { Connector } from "./engine";
import { readable } from "./engine";
import { guardedRequest } from "./http";
import type { SourceConfig } from "./schema";

type WebConfig = Extract<SourceConfig, { kind: "web" }>;

const USER_AGENT = "kb-mcp-chat-sources";
const MAX_SITEMAPS = 20;
const MAX_CRAWL_DELAY_MS = 10_000;
/** Links kept of one page (stored with it, so an unchanged page still leads the crawl on). */
const MAX_LINKS = 500;

function delayMs(): number {
  const v = Number(process.env.SOURCE_WEB_DELAY_MS);
  return Number.isFinite(v) && v >= 0 ? v : 500;
}

/** A URL as an item key: no fragment. */
function keyOf(url: URL): string {
  const u = new URL(url);
  u.hash = "";
  return u.href;
}

/** The folder of a URL's path ("/docs/" for /docs/intro.html and /docs/). */
function prefixOf(url: URL): string {
  return url.pathname.endsWith("/") ? url.pathname : url.pathname.slice(0, url.pathname.lastIndexOf("/") + 1);
}

const CONTENT_TYPE_EXT: Record<string, string> = {
  "text/html": ".html",
  "application/xhtml+xml": ".html",
  "application/pdf": ".pdf",
  "text/markdown": ".md",
  "text/plain": ".txt",
  "text/csv": ".csv",
  "application/json": ".json",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx",
};

/** A file name for what a URL answered: its last path segment, with the extension its content type says. */
function nameFor(url: URL, contentType: string): string {
  const type = contentType.split(";")[0].trim().toLowerCase();
  const last = decodeURIComponent(url.pathname.split("/").filter(Boolean).pop() ?? "") || url.hostname;
  const ext = extensionOf(last);
  const byType = CONTENT_TYPE_EXT[type];
  if (byType && ext !== byType && !(byType === ".html" && (ext === ".htm" || ext === ".xhtml"))) return `${last}${byType}`;
  return last;
}

const isHtml = (contentType: string) => /^(text\/html|application\/xhtml\+xml)/i.test(contentType);

/** The first MAX_LINKS links of a page to its own host (a crawl follows no other). */
function linksOf(html: string, base: URL): string[] {
  const { document } = parseHTML(html);
  const out = new Set<string>();
  for (const a of document.querySelectorAll("a[href]")) {
    const href = URL.parse(a.getAttribute("href") ?? "", base);
    if (href && href.origin === base.origin) out.add(keyOf(href));
    if (out.size >= MAX_LINKS) break;
  }
  return [...out];
}

function* locsOf(xml: string): Generator<string> {
  for (const m of xml.matchAll(/<loc>\s*([^<\s]+)\s*<\/loc>/gi)) yield m[1].replaceAll("&amp;", "&");
}

/**
 * A page's main text (what the HTML parser keeps, lib/parse/html.ts) as a hash: a change to the page's navigation,
 * scripts or footer leaves it as it was, so the page is not indexed again. Undefined when the page cannot be read
 * (its ingest then says why).
 */
async function mainTextHash(name: string, data: Uint8Array): Promise<string | undefined> {
  try {
    const parsed = await parseDocument(name, data);
    return sha256(`${parsed.title ?? ""}\u0000${parsed.text}`);
  } catch {
    return undefined;
  }
}

interface Queued {
  url: URL;
  depth: number;
  /** A file linked from a page: fetched, never expanded. */
  fileOnly: boolean;
}

export const webConnector: Connector = async (ctx) => {
  const config = ctx.source.config as WebConfig;
  const start = new URL(config.url);
  const prefix = config.mode === "sitemap" ? "/" : prefixOf(start);
  const inScope = (u: URL) => u.origin === start.origin && u.pathname.startsWith(prefix);
  const sameHost = (u: URL) => u.origin === start.origin;

  // robots.txt: missing or unreadable means everything is allowed; a refused address fails the run (nothing removed).
  const robotsUrl = new URL("/robots.txt", start);
  const robotsRes = await guardedRequest(robotsUrl, { maxBytes: 512 * 1024, signal: ctx.signal });
  const robots = robotsParser(robotsUrl.href, robotsRes.status === 200 ? robotsRes.body.toString("utf8") : "");
  const allowed = (u: URL) => robots.isAllowed(u.href, USER_AGENT) !== false;
  const crawlDelay = Math.min((robots.getCrawlDelay(USER_AGENT) ?? 0) * 1000, MAX_CRAWL_DELAY_MS);
  const pause = () => sleep(Math.max(delayMs(), crawlDelay));

  const queue: Queued[] = [];
  const queued = new Set<string>();
  // Past maxPages URLs the crawl could never request another: the frontier stops growing there.
  const full = () => queued.size >= config.maxPages;
  const enqueue = (url: URL, depth: number, fileOnly: boolean) => {
    const key = keyOf(url);
    const ext = extensionOf(url.pathname);
    if (ext && !readable(`x${ext}`) && ext !== ".php" && ext !== ".asp" && ext !== ".aspx") return; // images, archives…
    if (full() || queued.has(key) || !allowed(url)) return;
    queued.add(key);
    queue.push({ url: new URL(key), depth, fileOnly });
  };

  if (config.mode === "sitemap") {
    const pending = [start];
    for (let n = 0; pending.length && n < MAX_SITEMAPS; n++) {
      const sitemap = pending.shift()!;
      await pause();
      const res = await guardedRequest(sitemap, { followTo: sameHost, signal: ctx.signal });
      if (res.status !== 200) throw new Error(`the sitemap ${sitemap.href} answered HTTP ${res.status}`);
      const xml = res.body.toString("utf8");
      const index = /<sitemapindex/i.test(xml);
      for (const loc of locsOf(xml)) {
        if (index ? pending.length + n + 1 >= MAX_SITEMAPS : full()) break;
        const u = URL.parse(loc);
        if (!u || !sameHost(u)) continue;
        if (index) pending.push(u);
        else enqueue(u, 0, false);
      }
    }
  } else enqueue(start, 0, false);

  let fetched = 0;
  const maxDepth = config.mode === "site" ? config.maxDepth : 0;
  while (queue.length && fetched < config.maxPages) {
    const { url, depth, fileOnly } = queue.shift()!;
    const key = keyOf(url);
    if (ctx.seen(key)) continue;
    fetched++;
    const before = ctx.previous.get(key);
    const validators = before?.version ? (JSON.parse(before.version) as { etag?: string; lastModified?: string }) : {};
    const headers: Record<string, string> = {};
    if (validators.etag) headers["if-none-match"] = validators.etag;
    if (validators.lastModified) headers["if-modified-since"] = validators.lastModified;
    await pause();
    let res: Awaited<ReturnType<typeof guardedRequest>>;
    try {
      res = await guardedRequest(url, {
        headers,
        followTo: (u) => (fileOnly ? sameHost(u) : inScope(u)) && allowed(u),
        signal: ctx.signal,
      });
    } catch (err) {
      ctx.fail(key, err instanceof Error ? err.message : String(err));
      continue;
    }
    const links = (list: string[] | null) => {
      if (fileOnly || !list) return;
      for (const l of list) {
        const u = new URL(l);
        const file = !!extensionOf(u.pathname) && readable(u.pathname) && !/\.x?html?$/i.test(u.pathname);
        if (file && sameHost(u)) enqueue(u, depth + 1, true);
        else if (depth < maxDepth && inScope(u)) enqueue(u, depth + 1, false);
      }
    };
    if (res.status === 304 && before) {
      ctx.keep(key);
      links(before.links);
      continue;
    }
    // Gone (404, 410): not seen, so its document is removed once the walk completes.
    if (res.status === 404 || res.status === 410) continue;
    if (res.status !== 200) {
      ctx.fail(key, `HTTP ${res.status}`);
      continue;
    }
    const finalKey = keyOf(res.url);
    if (finalKey !== key && ctx.seen(finalKey)) continue;
    const contentType = String(res.headers["content-type"] ?? "");
    const pageLinks = isHtml(contentType) ? linksOf(res.body.toString("utf8"), res.url) : null;
    const version = JSON.stringify({ etag: res.headers.etag, lastModified: res.headers["last-modified"] });
    const name = nameFor(res.url, contentType);
    await ctx.ingest({
      key,
      url: res.url.href,
      name,
      data: res.body,
      version,
      links: pageLinks,
      fingerprint: pageLinks ? await mainTextHash(name, res.body) : undefined,
    });
    links(pageLinks);
  }
  return { note: `${fetched} URLs requested` };
};
