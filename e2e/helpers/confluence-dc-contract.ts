/**
 * The Data Center half of the Confluence contract server (./confluence-contract.ts, whose top comment cites the
 * references): REST v1 under the context path, a personal access token as Bearer, CQL searches paged by `start`.
 */
import type http from "node:http";

/** Data Center's context path (Confluence under https://host/confluence). */
export const CONTEXT = "/confluence";

export interface ContentSpec {
  id: string;
  type: "page" | "blogpost";
  space: string;
  title: string;
  parentId?: string | null;
  /** The rendered body (`body-format=view`): Confluence's XHTML as the browser gets it. */
  html: string;
  attachments?: { id: string; title: string; mediaType: string; data: string; version?: number }[];
  version?: number;
  restricted?: boolean;
  trashed?: boolean;
}

export const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { "content-type": "application/json;charset=UTF-8", ...headers }).end(JSON.stringify(body));

interface ContractState {
  token: string;
  spaces: Map<string, { id: string; key: string; name: string }>;
  content: Map<string, ContentSpec>;
  endless: "new" | "same" | "items" | null;
  pageSize: number;
  anonymousAccess: boolean;
}

export function dataCenterContract({
  state,
  modified,
  site: siteOf,
  valid: isValid,
  viewable,
}: {
  state: ContractState;
  modified: Map<string, string>;
  site: () => string;
  valid: () => boolean;
  viewable: (c: ContentSpec | undefined) => c is ContentSpec;
}) {
  /** Data Center's answers: REST v1 under the context path, a personal access token as Bearer. */
  const dcError = (res: http.ServerResponse, status: number, message: string, headers: Record<string, string> = {}) =>
    json(
      res,
      status,
      { statusCode: status, data: { authorized: status !== 401, valid: true, errors: [], successful: false }, message },
      headers,
    );
  const dcWebui = (c: ContentSpec) =>
    c.type === "page"
      ? `/display/${c.space}/${encodeURIComponent(c.title).replace(/%20/g, "+")}`
      : `/display/${c.space}/2026/01/05/${encodeURIComponent(c.title).replace(/%20/g, "+")}`;
  const dcContent = (c: ContentSpec, expand: string[]) => {
    const out: Record<string, unknown> = {
      id: c.id,
      type: c.type,
      status: "current",
      title: c.title,
      extensions: { position: "none" },
      _links: { webui: dcWebui(c), tinyui: `/x/${c.id}`, self: `${siteOf()}/rest/api/content/${c.id}` },
      _expandable: {
        version: "",
        ancestors: "",
        body: "",
        space: `/rest/api/space/${c.space}`,
        children: `/rest/api/content/${c.id}/child`,
      },
    };
    if (expand.includes("version"))
      out.version = {
        by: { type: "known", username: "kb-sync", userKey: "2c9d8b2a7f0e", displayName: "KB Sync" },
        when: modified.get(c.id),
        message: "",
        number: c.version ?? 1,
        minorEdit: false,
        hidden: false,
      };
    if (expand.includes("ancestors")) {
      const chain: ContentSpec[] = [];
      let up = c.parentId ? state.content.get(c.parentId) : undefined;
      while (up && chain.length < 50) {
        chain.unshift(up);
        up = up.parentId ? state.content.get(up.parentId) : undefined;
      }
      out.ancestors = chain.map((a) => ({ id: a.id, type: "page", status: "current", title: a.title, _links: { webui: dcWebui(a) } }));
    }
    if (expand.includes("body.view")) out.body = { view: { value: c.html, representation: "view" } };
    return out;
  };
  const dcAttachment = (c: ContentSpec, a: NonNullable<ContentSpec["attachments"]>[number], expand: string[]) => ({
    id: a.id,
    type: "attachment",
    status: "current",
    title: a.title,
    ...(expand.includes("version")
      ? { version: { when: modified.get(c.id), message: "", number: a.version ?? 1, minorEdit: false, hidden: false } }
      : {}),
    metadata: { mediaType: a.mediaType },
    extensions: { mediaType: a.mediaType, fileSize: Buffer.byteLength(a.data), comment: "" },
    _links: {
      webui: `/pages/viewpageattachments.action?pageId=${c.id}&preview=${encodeURIComponent(`/${c.id}/${a.title}`)}`,
      download: `/download/attachments/${c.id}/${encodeURIComponent(a.title)}?version=${a.version ?? 1}&modificationDate=${Date.parse(modified.get(c.id) ?? "")}&api=v2`,
      self: `${siteOf()}/rest/api/content/${a.id}`,
    },
  });
  /** One page of a CQL search: `start` and `limit`, the next page's URL (relative to the base) in `_links.next`. */
  const dcPage = (res: http.ServerResponse, url: URL, items: unknown[], max: number, extra: Record<string, unknown> = {}) => {
    const start = Number(url.searchParams.get("start") ?? 0);
    const limit = Math.min(Number(url.searchParams.get("limit") ?? 25), max, state.pageSize);
    let next: number | null = start + limit < items.length ? start + limit : null;
    if (state.endless) next = state.endless === "same" ? limit : start + limit;
    const results = state.endless ? [] : items.slice(start, start + limit);
    const links: Record<string, string> = {
      base: siteOf(),
      context: CONTEXT,
      self: `${siteOf()}${url.pathname.slice(CONTEXT.length)}${url.search}`,
    };
    if (next !== null) {
      const n = new URL(url);
      n.searchParams.set("start", String(next));
      n.searchParams.set("limit", String(limit));
      links.next = `${n.pathname.slice(CONTEXT.length)}${n.search}`;
    }
    return json(res, 200, { results, start, limit, size: results.length, ...extra, _links: links });
  };
  const dataCenter = (req: http.IncomingMessage, res: http.ServerResponse, url: URL) => {
    const anonymous = !isValid() || req.headers.authorization !== `Bearer ${state.token}`;
    if (anonymous && !state.anonymousAccess) return dcError(res, 401, "This request requires authentication");
    if (req.method !== "GET") return dcError(res, 405, "Method not allowed");
    const p = url.pathname.startsWith(`${CONTEXT}/`) ? url.pathname.slice(CONTEXT.length) : "";
    const cql = url.searchParams.get("cql") ?? "";
    // Data Center reads the first `expand` only, a comma-separated list.
    const expand = (url.searchParams.get("expand") ?? "").split(",").filter(Boolean);
    // The anonymous user sees no space of the contract's.
    const visible = (c: ContentSpec | undefined): c is ContentSpec => !anonymous && viewable(c);
    if (p === "/rest/api/user/current")
      return json(
        res,
        200,
        anonymous
          ? { type: "anonymous", displayName: "Anonymous" }
          : { type: "known", username: "kb-sync", userKey: "2c9d8b2a7f0e", displayName: "KB Sync" },
      );
    if (p === "/rest/api/search") {
      const m = /^type = space and space\.key in \(((?:"[^"]+"(?:, )?)+)\)$/.exec(cql);
      if (!m) return dcError(res, 400, `Could not parse cql : ${cql}`);
      const keys = [...m[1].matchAll(/"([^"]+)"/g)].map((k) => k[1]);
      const spaces = anonymous ? [] : [...state.spaces.values()].filter((s) => keys.includes(s.key));
      const results = spaces.map((s) => ({
        space: {
          id: Number(s.id),
          key: s.key,
          name: s.name,
          type: "global",
          status: "current",
          _links: { webui: `/display/${s.key}` },
          _expandable: { metadata: "", icon: "", description: "", homepage: "" },
        },
        title: s.name,
        excerpt: "",
        url: `/display/${s.key}`,
        breadcrumbs: [],
        entityType: "space",
        iconCssClass: "aui-icon content-type-space",
        lastModified: "2026-01-05T09:00:00.000Z",
      }));
      return dcPage(res, url, results, 1000, { totalSize: results.length, cqlQuery: cql, searchDuration: 3 });
    }
    if (p === "/rest/api/content/search") {
      const all = [...state.content.values()];
      const inSpace = /^space = "([^"]+)" and type in \(page, blogpost\) order by lastmodified desc$/.exec(cql)?.[1];
      const byId = /^id = (\d+)$/.exec(cql)?.[1];
      const container = /^type = attachment and container = (\d+)$/.exec(cql)?.[1];
      let items: unknown[];
      if (inSpace)
        items = all
          .filter((c) => visible(c) && c.space === inSpace)
          .sort((a, b) => (modified.get(a.id)! < modified.get(b.id)! ? 1 : -1))
          .map((c) => dcContent(c, expand));
      else if (byId) {
        const c = state.content.get(byId);
        items = visible(c) ? [dcContent(c, expand)] : [];
      } else if (container) {
        const c = state.content.get(container);
        items = visible(c) ? (c.attachments ?? []).map((a) => dcAttachment(c, a, expand)) : [];
      } else return dcError(res, 400, `Could not parse cql : ${cql}`);
      return dcPage(res, url, items, expand.some((e) => e.startsWith("body")) ? 50 : expand.length ? 200 : 1000);
    }
    const download = /^\/download\/attachments\/(\d+)\/([^/]+)$/.exec(p);
    if (download) {
      const c = state.content.get(download[1]);
      const a = visible(c) ? c.attachments?.find((x) => x.title === decodeURIComponent(download[2])) : undefined;
      if (!a) return dcError(res, 404, "Not found");
      return res.writeHead(200, { "content-type": a.mediaType }).end(a.data);
    }
    return dcError(res, 404, "No such endpoint");
  };

  return {
    handle: dataCenter,
    busy: (res: http.ServerResponse, retryAfter: string) =>
      dcError(res, 429, "Rate limit exceeded", {
        "retry-after": retryAfter,
        "x-ratelimit-limit": "20",
        "x-ratelimit-remaining": "0",
        "x-ratelimit-interval-seconds": "1",
        "x-ratelimit-fillrate": "5",
      }),
  };
}
