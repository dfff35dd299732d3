/**
 * MediaWiki (intranet wikis): each page of the chosen namespaces one document, its current revision as the wiki
 * renders it (action=parse: templates expanded, sections as headings), read by the HTML parser; the page's URL is
 * its Original. Anonymous, or a bot password (Special:BotPasswords, "basic" grant) logged in with action=login.
 *
 * The first sync lists every page (generator=allpages with prop=info: id, title, latest revision); later syncs
 * read only the recent changes since the last one (list=recentchanges: edits, new pages, deletions, moves and
 * restores) and ask again only about the pages those name; every other page is kept without a request. A cursor
 * older than the wiki keeps its recent changes (RC_MAX_AGE_DAYS) means a full listing again. Continuations are
 * bounded (SOURCE_MAX_LIST_PAGES, a repeated continuation is an error), so a wiki that lists forever fails the sync,
 * removing nothing. Requests go through ./http.ts (public-address rule, a redirect may not leave the wiki's origin,
 * 429/503 waited out as Retry-After says).
 */
import { sourceLimits } from "@/lib/config";
import type { Connector } from "./engine";
import { patientRequest } from "./http";
import type { SourceConfig } from "./schema";

type MediawikiConfig = Extract<SourceConfig, { kind: "mediawiki" }>;

const CURSOR_KEY = "recentchanges";
const PAGE = "page:";
/** MediaWiki keeps recent changes 90 days by default ($wgRCMaxAge): an older cursor cannot be trusted. */
const RC_MAX_AGE_DAYS = 80;
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

interface PageInfo {
  pageid: number;
  title: string;
  lastrevid: number;
  fullurl?: string;
  missing?: boolean;
}

interface RecentChange {
  rcid: number;
  pageid?: number;
  title?: string;
  logparams?: { target_title?: string };
}

/** What the API answers, as far as this reads it (formatversion=2). */
interface ApiAnswer {
  error?: { code?: string; info?: string };
  continue?: Record<string, string>;
  query?: {
    pages?: (PageInfo & { ns?: number })[];
    recentchanges?: RecentChange[];
    tokens?: { logintoken?: string };
  };
  login?: { result?: string; reason?: unknown };
  parse?: { text?: string; title?: string };
}

const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c] ?? c);

export const mediawikiConnector: Connector = async (ctx) => {
  const config = ctx.source.config as MediawikiConfig;
  const api = new URL(config.url);
  const cookies = new Map<string, string>();
  const { maxListPages } = sourceLimits();
  let requests = 0;

  async function call(params: Record<string, string>, form?: Record<string, string>): Promise<ApiAnswer> {
    const url = new URL(api);
    for (const [k, v] of Object.entries({ ...params, format: "json", formatversion: "2" })) url.searchParams.set(k, v);
    const headers: Record<string, string> = {};
    if (cookies.size) headers.cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    if (form) headers["content-type"] = "application/x-www-form-urlencoded";
    requests++;
    const res = await patientRequest(url, {
      method: form ? "POST" : "GET",
      headers,
      body: form ? new URLSearchParams(form).toString() : undefined,
      maxBytes: params.action === "parse" ? ctx.maxBytes : MAX_ANSWER_BYTES,
      followTo: (u) => u.origin === api.origin,
      signal: ctx.signal,
    });
    for (const c of [res.headers["set-cookie"] ?? []].flat()) {
      const m = /^([^=;\s]+)=([^;]*)/.exec(c);
      if (m) cookies.set(m[1], m[2]);
    }
    const retried = res.retries ? ` after ${res.retries} retries` : "";
    if (res.status !== 200) throw new Error(`the wiki answered HTTP ${res.status} to ${params.action}${retried}`);
    let body: ApiAnswer;
    try {
      body = JSON.parse(res.body.toString("utf8"));
    } catch {
      throw new Error(`the wiki's answer to ${params.action} is not JSON: is ${api.pathname} its api.php?`);
    }
    if (body.error) {
      const { code, info } = body.error;
      if (code === "readapidenied" || code === "permissiondenied" || code === "mwoauth-invalid-authorization")
        throw new Error(
          `the wiki refused to let this source read (${code}): ${String(info ?? "").slice(0, 200)}; check its bot password and grants`,
        );
      throw new Error(`the wiki answered ${code ?? "an error"} to ${params.action}: ${String(info ?? "").slice(0, 200)}`);
    }
    return body;
  }

  /** Every result of a query, following its continuations (at most SOURCE_MAX_LIST_PAGES, none repeated). */
  async function* query(params: Record<string, string>): AsyncGenerator<NonNullable<ApiAnswer["query"]>> {
    let cont: Record<string, string> = { continue: "" };
    const seen = new Set<string>();
    for (let page = 0; ; page++) {
      if (page >= maxListPages) throw new Error(`the wiki's listing did not end after ${maxListPages} pages (SOURCE_MAX_LIST_PAGES)`);
      const body = await call({ action: "query", ...params, ...cont });
      if (body.query) yield body.query;
      if (!body.continue) return;
      const next = JSON.stringify(body.continue);
      if (seen.has(next)) throw new Error(`the wiki's listing repeats a continuation after ${page + 1} pages: it would never end`);
      seen.add(next);
      cont = body.continue;
    }
  }

  if (config.username) {
    const password = ctx.secrets.password;
    if (!password) throw new Error("this source has no password");
    const token = (await call({ action: "query", meta: "tokens", type: "login" })).query?.tokens?.logintoken;
    const login = (await call({ action: "login" }, { lgname: config.username, lgpassword: password, lgtoken: String(token ?? "") })).login;
    if (login?.result !== "Success")
      throw new Error(
        `the wiki refused the login of ${config.username} (${login?.result ?? "no answer"}${login?.reason ? `: ${String(typeof login.reason === "string" ? login.reason : JSON.stringify(login.reason)).slice(0, 200)}` : ""}): the bot password was revoked, expired or changed; enter it again`,
      );
  }

  const namespaces = config.namespaces.join("|");
  // The newest recent change before anything is read: the next sync starts after it.
  const newest = (await call({ action: "query", list: "recentchanges", rcprop: "timestamp|ids", rclimit: "1", rcdir: "older" })).query
    ?.recentchanges?.[0] as (RecentChange & { timestamp?: string }) | undefined;
  const cursor = JSON.stringify({ timestamp: newest?.timestamp ?? null, rcid: newest?.rcid ?? 0 });
  const before = ctx.previous.get(CURSOR_KEY)?.version;
  const since = before ? (JSON.parse(before) as { timestamp: string | null; rcid: number }) : null;
  const fresh = !!since?.timestamp && Date.now() - Date.parse(since.timestamp) < RC_MAX_AGE_DAYS * 86_400_000;

  const pageUrl = (p: PageInfo) => p.fullurl ?? new URL(`index.php?curid=${p.pageid}`, api).href;
  async function take(p: PageInfo): Promise<void> {
    const key = `${PAGE}${p.pageid}`;
    const version = JSON.stringify({ rev: p.lastrevid, title: p.title });
    const was = ctx.previous.get(key);
    if (was?.documentId && was.version === version) {
      ctx.keep(key);
      return;
    }
    try {
      const parsed = (
        await call({
          action: "parse",
          pageid: String(p.pageid),
          prop: "text|displaytitle",
          disableeditsection: "1",
          disablelimitreport: "1",
        })
      ).parse as { text?: string; title?: string };
      const title = parsed.title ?? p.title;
      const html = `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><main><h1>${escapeHtml(title)}</h1>${parsed.text ?? ""}</main></body></html>`;
      await ctx.ingest({
        key,
        url: pageUrl(p),
        name: `${title.replace(/[\\/:*?"<>|]+/g, " ").slice(0, 120)}.html`,
        data: Buffer.from(html, "utf8"),
        version,
      });
    } catch (err) {
      ctx.signal.throwIfAborted();
      ctx.fail(key, err instanceof Error ? err.message : String(err));
    }
  }

  let listed = 0;
  if (!fresh) {
    for await (const q of query({ generator: "allpages", gapnamespace: namespaces, gaplimit: "max", prop: "info", inprop: "url" }))
      for (const p of q.pages ?? []) {
        listed++;
        await take(p);
      }
  } else {
    // What changed since the cursor: pages by id (edits, new pages, moves) and by title (deletions, restores).
    const ids = new Set<number>();
    const titles = new Set<string>();
    for await (const q of query({
      list: "recentchanges",
      rcstart: since!.timestamp!,
      rcdir: "newer",
      rcnamespace: namespaces,
      rcprop: "ids|title|timestamp|loginfo",
      rclimit: "max",
    }))
      for (const rc of (q.recentchanges ?? []) as {
        rcid: number;
        pageid?: number;
        title?: string;
        logparams?: { target_title?: string };
      }[]) {
        if (rc.rcid <= since!.rcid) continue;
        if (rc.pageid) ids.add(rc.pageid);
        if (rc.title) titles.add(rc.title);
        if (rc.logparams?.target_title) titles.add(rc.logparams.target_title);
      }
    const byTitle = new Map<string, string>();
    for (const [key, item] of ctx.previous)
      if (key.startsWith(PAGE) && item.version) byTitle.set((JSON.parse(item.version) as { title: string }).title, key);
    const touched = new Set([...ids].map((id) => `${PAGE}${id}`));
    for (const t of titles) {
      const key = byTitle.get(t);
      if (key) touched.add(key);
    }
    // Asked about again: the touched pages still known by id, and every title named (a new or restored page).
    const ask = async (param: "pageids" | "titles", values: string[]) => {
      for (let i = 0; i < values.length; i += 50) {
        const body = await call({ action: "query", prop: "info", inprop: "url", [param]: values.slice(i, i + 50).join("|") });
        for (const p of body.query?.pages ?? [])
          if (!p.missing && p.pageid && config.namespaces.includes(p.ns ?? 0) && !ctx.seen(`${PAGE}${p.pageid}`)) {
            listed++;
            await take(p);
          }
      }
    };
    await ask(
      "pageids",
      [...touched].map((k) => k.slice(PAGE.length)),
    );
    await ask("titles", [...titles]);
    for (const key of ctx.previous.keys()) if (key.startsWith(PAGE) && !touched.has(key)) ctx.keep(key);
  }
  await ctx.track(CURSOR_KEY, cursor);
  return {
    note: fresh ? `${listed} pages changed since the last sync (${requests} requests)` : `${listed} pages listed (${requests} requests)`,
  };
};
