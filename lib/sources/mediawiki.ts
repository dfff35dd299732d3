/**
 * MediaWiki (intranet wikis): each page of the chosen namespaces one document, its current revision as the wiki
 * renders it (action=parse: templates expanded, sections as headings), read by the HTML parser; the page's URL is
 * its Original. Anonymous, or a bot password (Special:BotPasswords, "basic" grant) logged in with action=login.
 *
 * Every sync lists every page (generator=allpages with prop=info: id, title, latest revision, and whether this
 * account may read it) and parses only a page whose revision or title changed; a page gone from the listing
 * (deleted, moved out of the namespaces) or no longer readable by the account loses its document. Recent changes
 * cannot replace the listing: a read permission withdrawn (an authorization extension's rule, a group's rights)
 * leaves no trace in them. Continuations are bounded (SOURCE_MAX_LIST_PAGES, a repeated continuation is an error),
 * so a wiki that lists forever fails the sync, removing nothing. Requests go through ./http.ts (public-address
 * rule, a redirect may not leave the wiki's origin, 429/503 waited out as Retry-After says).
 */
import { sourceLimits } from "@/lib/config";
import type { Connector } from "./engine";
import { patientRequest } from "./http";
import type { SourceConfig } from "./schema";

type MediawikiConfig = Extract<SourceConfig, { kind: "mediawiki" }>;

const PAGE = "page:";
/** Pages no longer readable named in the run's note at most. */
const MAX_NOTED = 5;
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

interface PageInfo {
  pageid: number;
  title: string;
  lastrevid: number;
  fullurl?: string;
  /** Present once the wiki tested the actions asked for (intestactions). */
  actions?: { read?: boolean };
}

/** What the API answers, as far as this reads it (formatversion=2). */
interface ApiAnswer {
  error?: { code?: string; info?: string };
  continue?: Record<string, string>;
  query?: {
    pages?: PageInfo[];
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
  // Pages this account may not read are counted, the first few named: a wiki listing them forever holds no more.
  let unreadable = 0;
  const noted: string[] = [];
  // The wiki answers whether this account may read each page (intestactions): a page it may no longer read is
  // neither kept nor parsed, so its document goes like a deleted page's. The answer stops at 50 tested pages (500
  // with apihighlimits) and continues: a page listed without it comes again in a later answer.
  for await (const q of query({
    generator: "allpages",
    gapnamespace: config.namespaces.join("|"),
    gaplimit: "max",
    prop: "info",
    inprop: "url",
    intestactions: "read",
  }))
    for (const p of q.pages ?? []) {
      if (!p.actions || ctx.seen(`${PAGE}${p.pageid}`)) continue;
      listed++;
      if (p.actions.read !== false) await take(p);
      else if (unreadable++ < MAX_NOTED) noted.push(p.title);
    }
  const gone = unreadable ? `; ${unreadable} not readable by this account: ${noted.join(", ")}${unreadable > MAX_NOTED ? ", …" : ""}` : "";
  return { note: `${listed} pages listed (${requests} requests)${gone}` };
};
