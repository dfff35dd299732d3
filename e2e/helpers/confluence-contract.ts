/**
 * A contract server for Confluence Cloud's REST API v2 and Confluence Data Center's REST v1, written from their public
 * references, for the Confluence source's tests (lib/sources/confluence.test.ts, confluence-dc.test.ts) driven
 * through confluence.js pointed at it. Cloud (`deployment: "cloud"`, the site at /wiki):
 * - authentication: https://developer.atlassian.com/cloud/confluence/basic-auth-for-rest-apis/ (Basic e-mail:API token)
 * - spaces: https://developer.atlassian.com/cloud/confluence/rest/v2/api-group-space/#api-spaces-get (`keys`)
 * - pages: https://developer.atlassian.com/cloud/confluence/rest/v2/api-group-page/#api-spaces-id-pages-get and
 *   #api-pages-id-get (`body-format=view`), blog posts: https://developer.atlassian.com/cloud/confluence/rest/v2/api-group-blog-post/
 * - attachments: https://developer.atlassian.com/cloud/confluence/rest/v2/api-group-attachment/#api-pages-id-attachments-get
 *   (`downloadLink` relative to the site's /wiki)
 * - download: https://developer.atlassian.com/cloud/confluence/rest/v1/api-group-content---attachments/#api-wiki-rest-api-content-id-child-attachment-attachmentid-download-get
 *   (v1; a redirect to the file)
 * - pagination: https://developer.atlassian.com/cloud/confluence/rest/v2/intro/#using (an opaque `cursor`, the next
 *   page's relative URL in `_links.next` and the `Link` header)
 * - rate limits: https://developer.atlassian.com/cloud/confluence/rate-limiting/ (429 with Retry-After in seconds)
 * Data Center (`deployment: "data-center"`, the base URL under the context path /confluence; REST v1 at
 * <base>/rest/api, Data Center 7.x–9.x):
 * - reference: https://docs.atlassian.com/ConfluenceServer/rest/latest (structure <base>/rest/api/…, no /wiki; 8.9.3's
 *   for earlier versions) and https://developer.atlassian.com/server/confluence/rest/v1000/api-group-attachments
 * - expansions: https://developer.atlassian.com/server/confluence/expansions-in-the-rest-api/
 * - personal access tokens: https://confluence.atlassian.com/enterprise/using-personal-access-tokens-1026032365.html
 *   (`Authorization: Bearer <token>`; a revoked one answers 401 — or, with anonymous access on, passes as the
 *   anonymous user: https://jira.atlassian.com/browse/CONFSERVER-98199; /rest/api/user/current says which)
 * - CQL search: /rest/api/content/search (`cql`, `expand` comma-separated, `start`, `limit`; at most 200 results
 *   expanding anything but the body, 50 with it: https://confluence.atlassian.com/confkb/searching-for-content-with-the-rest-api-and-cql-always-limits-results-to-50-1032258424.html),
 *   the next page's URL relative to the base in `_links.next` (with `start`); /rest/api/search for spaces
 *   (`type = space`); fields https://developer.atlassian.com/server/confluence/cql-field-reference/ (space,
 *   type, id, container = <page id> and type = attachment)
 * - attachments: no REST download (https://jira.atlassian.com/browse/CONFSERVER-94115): each file at its
 *   `_links.download` on the site (/download/attachments/<page id>/<name>?version=…)
 * - rate limiting: https://confluence.atlassian.com/conf88/adjusting-your-code-for-rate-limiting-1354500992.html (429
 *   with Retry-After in seconds and the X-RateLimit-* headers)
 * Only what the account may view is listed; a page whose view permission was withdrawn is missing from listings and
 * answers 404 (Cloud) or is not found (Data Center), as the references say. Every request is recorded (method, URL,
 * Authorization).
 */
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { CONTEXT, type ContentSpec, dataCenterContract, json } from "./confluence-dc-contract";
import { withBody } from "./whole-request";

export interface ConfluenceContract {
  deployment: "cloud" | "data-center";
  /** The site as a user names it: Cloud's …/wiki, Data Center's base URL (…/confluence). */
  site: string;
  email: string;
  token: string;
  requests: { method: string; url: string; auth: string | undefined }[];
  spaces: Map<string, { id: string; key: string; name: string }>;
  content: Map<string, ContentSpec>;
  busy: string[];
  /**
   * A listing answers with one more cursor forever: empty pages ("new"), the same cursor ("same"), or, for a space's
   * pages and posts, a full page of new ones each time ("items").
   */
  endless: "new" | "same" | "items" | null;
  pageSize: number;
  /** Data Center: a wrong token passes as the anonymous user (who sees no space) instead of answering 401. */
  anonymousAccess: boolean;
  put(c: ContentSpec): void;
  /** A new version of the page (its version number moves on). */
  edit(id: string, change: Partial<ContentSpec>): void;
  /** A page moved under another parent: no new version (a move is not an edit of the page). */
  move(id: string, parentId: string | null): void;
  revoke(): void;
  issue(token: string): void;
  close(): Promise<void>;
}

const error = (res: http.ServerResponse, status: number, code: string, title: string, headers: Record<string, string> = {}) =>
  json(res, status, { errors: [{ status, code, title, detail: null }] }, headers);

export async function startConfluenceContract({
  deployment = "cloud",
  email = "kb-sync@example.com",
  token = deployment === "cloud" ? "ATATT3xFfGF0-contract-token" : "NjE0OTk2ODk1NzQ0OmNvbnRyYWN0LXBhdA",
}: {
  deployment?: "cloud" | "data-center";
  email?: string;
  token?: string;
} = {}): Promise<ConfluenceContract> {
  let valid = true;
  let clock = Date.parse("2026-01-05T09:00:00.000Z");
  const modified = new Map<string, string>();
  const state: Omit<ConfluenceContract, "site" | "close" | "put" | "edit" | "move" | "revoke" | "issue"> = {
    deployment,
    email,
    token,
    requests: [],
    spaces: new Map(),
    content: new Map(),
    busy: [],
    endless: null,
    pageSize: 250,
    anonymousAccess: false,
  };
  const webui = (c: ContentSpec) =>
    c.type === "page"
      ? `/spaces/${c.space}/pages/${c.id}/${encodeURIComponent(c.title.replace(/\s+/g, "+"))}`
      : `/spaces/${c.space}/blog/${c.id}`;
  const summary = (c: ContentSpec) => ({
    id: c.id,
    status: "current",
    title: c.title,
    spaceId: state.spaces.get(c.space)?.id,
    ...(c.type === "page" ? { parentId: c.parentId ?? null, parentType: c.parentId ? "page" : null } : {}),
    authorId: "557058:contract",
    createdAt: "2026-01-05T09:00:00.000Z",
    version: { number: c.version ?? 1, createdAt: modified.get(c.id), message: "", minorEdit: false, authorId: "557058:contract" },
    _links: { webui: webui(c), editui: `/pages/resumedraft.action?draftId=${c.id}`, tinyui: `/x/${c.id}` },
  });
  /** A page of a listing that never ends, its title long. */
  const invented = (id: string) => ({
    id,
    status: "current",
    title: `Invented ${id} ${"x".repeat(200)}`,
    parentId: null,
    version: { number: 1, createdAt: "2026-01-05T09:00:00.000Z", message: "", minorEdit: false, authorId: "557058:contract" },
    _links: { webui: `/spaces/X${id}/pages/${id}` },
  });
  const viewable = (c: ContentSpec | undefined): c is ContentSpec => !!c && !c.restricted && !c.trashed;
  /** One answer of a listing: an opaque cursor (the offset), the next page's URL in _links.next and in Link. */
  const page = (res: http.ServerResponse, url: URL, items: unknown[], base: string, content = false) => {
    const cursor = url.searchParams.get("cursor");
    const start = cursor ? Number(Buffer.from(cursor, "base64url").toString()) : 0;
    const limit = Math.min(Number(url.searchParams.get("limit") ?? 25), 250, state.pageSize);
    let next: string | null = start + limit < items.length ? Buffer.from(String(start + limit)).toString("base64url") : null;
    const endless = state.endless === "items" && !content ? null : state.endless;
    if (endless) next = endless === "same" ? "c2FtZQ" : Buffer.from(`n${state.requests.length}`).toString("base64url");
    const results =
      endless === "items"
        ? Array.from({ length: limit }, (_, i) => invented(`${state.requests.length}${String(i).padStart(3, "0")}`))
        : endless
          ? []
          : items.slice(start, start + limit);
    const links: Record<string, string> = { base };
    const headers: Record<string, string> = {};
    if (next) {
      const n = new URL(url);
      n.searchParams.set("cursor", next);
      links.next = `${n.pathname}${n.search}`;
      headers.link = `<${links.next}>; rel="next", <${base}>; rel="base"`;
    }
    return json(res, 200, { results, _links: links }, headers);
  };

  let site = "";
  const dc = dataCenterContract({ state, modified, site: () => site, valid: () => valid, viewable });
  const server = http.createServer(
    withBody((req, res) => {
      const url = new URL(req.url ?? "/", "http://x");
      state.requests.push({ method: req.method ?? "", url: req.url ?? "", auth: req.headers.authorization });
      const busy = state.busy.shift();
      if (busy !== undefined && deployment === "data-center") return dc.busy(res, busy);
      if (busy !== undefined) return error(res, 429, "TOO_MANY_REQUESTS", "Rate limit exceeded", { "retry-after": busy });
      if (deployment === "data-center") return dc.handle(req, res, url);
      const basic = `Basic ${Buffer.from(`${state.email}:${state.token}`).toString("base64")}`;
      if (!valid || req.headers.authorization !== basic) return error(res, 401, "UNAUTHORIZED", "Unauthorized");
      const p = url.pathname;
      if (req.method !== "GET") return error(res, 405, "METHOD_NOT_ALLOWED", "Method not allowed");
      if (p === "/wiki/api/v2/spaces") {
        const keys = url.searchParams.getAll("keys").flatMap((k) => k.split(","));
        const spaces = [...state.spaces.values()].filter((s) => !keys.length || keys.includes(s.key));
        return page(
          res,
          url,
          spaces.map((s) => ({ ...s, type: "global", status: "current", _links: { webui: `/spaces/${s.key}` } })),
          site,
        );
      }
      const list = /^\/wiki\/api\/v2\/spaces\/(\d+)\/(pages|blogposts)$/.exec(p);
      if (list) {
        const space = [...state.spaces.values()].find((s) => s.id === list[1]);
        if (!space) return error(res, 404, "NOT_FOUND", "Space not found");
        const type = list[2] === "pages" ? "page" : "blogpost";
        const items = [...state.content.values()].filter((c) => viewable(c) && c.type === type && c.space === space.key);
        const sort = url.searchParams.get("sort");
        if (sort === "-modified-date") items.sort((a, b) => (modified.get(a.id)! < modified.get(b.id)! ? 1 : -1));
        return page(res, url, items.map(summary), site, true);
      }
      const one = /^\/wiki\/api\/v2\/(pages|blogposts)\/(\d+)$/.exec(p);
      if (one) {
        const c = state.content.get(one[2]);
        if (!viewable(c) || c.type !== (one[1] === "pages" ? "page" : "blogpost")) return error(res, 404, "NOT_FOUND", "Not found");
        const format = url.searchParams.get("body-format");
        const body = format === "view" ? { view: { value: c.html, representation: "view" } } : {};
        return json(res, 200, { ...summary(c), body });
      }
      const atts = /^\/wiki\/api\/v2\/(pages|blogposts)\/(\d+)\/attachments$/.exec(p);
      if (atts) {
        const c = state.content.get(atts[2]);
        if (!viewable(c)) return error(res, 404, "NOT_FOUND", "Not found");
        const items = (c.attachments ?? []).map((a) => ({
          id: a.id,
          status: "current",
          title: a.title,
          mediaType: a.mediaType,
          fileSize: Buffer.byteLength(a.data),
          pageId: c.type === "page" ? c.id : undefined,
          version: { number: a.version ?? 1, createdAt: modified.get(c.id) },
          webuiLink: `/pages/viewpageattachments.action?pageId=${c.id}&preview=${encodeURIComponent(`/${c.id}/${a.title}`)}`,
          downloadLink: `/download/attachments/${c.id}/${encodeURIComponent(a.title)}?version=${a.version ?? 1}&api=v2`,
          _links: { download: `/download/attachments/${c.id}/${encodeURIComponent(a.title)}` },
        }));
        return page(res, url, items, site);
      }
      const v1 = /^\/wiki\/rest\/api\/content\/(\d+)\/child\/attachment\/([^/]+)\/download$/.exec(p);
      if (v1) {
        const c = state.content.get(v1[1]);
        const a = viewable(c) ? c.attachments?.find((x) => x.id === v1[2]) : undefined;
        if (!a) return error(res, 404, "NOT_FOUND", "Not found");
        return res
          .writeHead(302, { location: `${site}/download/attachments/${c!.id}/${encodeURIComponent(a.title)}?version=${a.version ?? 1}` })
          .end();
      }
      const download = /^\/wiki\/download\/attachments\/(\d+)\/([^/]+)$/.exec(p);
      if (download) {
        const c = state.content.get(download[1]);
        const a = viewable(c) ? c.attachments?.find((x) => x.title === decodeURIComponent(download[2])) : undefined;
        if (!a) return error(res, 404, "NOT_FOUND", "Not found");
        return res.writeHead(200, { "content-type": a.mediaType }).end(a.data);
      }
      return error(res, 404, "NOT_FOUND", "No such endpoint");
    }),
  );
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  site = `http://127.0.0.1:${(server.address() as AddressInfo).port}${deployment === "cloud" ? "/wiki" : CONTEXT}`;
  const touch = (id: string) => {
    clock += 60_000;
    modified.set(id, new Date(clock).toISOString());
  };
  return Object.assign(state, {
    site,
    put(c: ContentSpec) {
      if (!state.spaces.has(c.space))
        state.spaces.set(c.space, { id: String(98000 + state.spaces.size), key: c.space, name: `${c.space} space` });
      state.content.set(c.id, { version: 1, ...c });
      touch(c.id);
    },
    edit(id: string, change: Partial<ContentSpec>) {
      const before = state.content.get(id);
      if (!before) throw new Error(`no content ${id}`);
      state.content.set(id, { ...before, ...change, version: (before.version ?? 1) + 1 });
      touch(id);
    },
    move(id: string, parentId: string | null) {
      const before = state.content.get(id);
      if (!before) throw new Error(`no content ${id}`);
      state.content.set(id, { ...before, parentId });
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
