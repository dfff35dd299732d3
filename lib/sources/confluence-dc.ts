/**
 * Confluence Data Center's reads for the Confluence source (./confluence.ts), through confluence.js's REST v1
 * functions, all by CQL (REST v1 on Data Center 7.x–9.x; 3.2's v1 keeps CQL search, not content by id): the site is
 * the base URL (https://confluence.example.com or …/confluence), the same REST v1 paths without Cloud's /wiki, a
 * personal access token as `Authorization: Bearer`.
 * - who: `users.getCurrentUser` (a token Data Center let through as the anonymous user is refused);
 * - spaces: `search.searchByCQL` (`type = space and space.key in (…)`): their names, and which the token can see;
 * - pages and posts of a space: `content.searchContentByCQL` (`space = "ENG" and type in (page, blogpost) order by
 *   lastmodified desc`, `expand=version,ancestors`): ids, titles, parents and versions, no bodies;
 * - one body: the same search by `id`, `expand=body.view` (an item no longer found is gone for the token);
 * - attachments: `type = attachment and container = <id>`, `expand=version`; each file is read from its
 *   `_links.download` on the site through the same transport (Data Center's REST API has no download).
 * Results come `limit` at a time from offset `start`, the next offset in `_links.next`.
 */
import { BufferSchema, type Client, type SendRequestOptions } from "confluence.js/core";
import { getCurrentUser, searchByCQL, searchContentByCQL } from "confluence.js/v1";
import { addItems, type ConfluenceApi, type ConfluenceItem, confluenceTransport, everyResult } from "./confluence-api";
import type { SyncContext } from "./engine";
import { sdkFetch } from "./sdk-fetch";
import { CredentialRefused, ItemGone } from "./tree";

/** Data Center answers at most 200 results to a search expanding anything but the body (1000 without, 50 with it). */
const LIMIT = 200;
const start = "start" as const;
const refused = "Confluence refused the credential (HTTP 401): the personal access token was revoked or expired; enter the token again";

export function dataCenterApi(
  ctx: Pick<SyncContext, "signal" | "maxBytes">,
  o: { url: string; spaces: string[]; token: string; maxAnswerBytes: number; onRequest: () => void },
): ConfluenceApi {
  const site = new URL(o.url);
  // Confluence may run under a context path (/confluence): its REST API and links are under it.
  const context = site.pathname.replace(/\/+$/, "");
  const base = `${site.origin}${context}`;
  const client = confluenceTransport({
    fetches: {
      api: sdkFetch(ctx, { origins: [site.origin], maxBytes: o.maxAnswerBytes, onRequest: o.onRequest }),
      file: sdkFetch(ctx, { origins: [site.origin], onRequest: o.onRequest }),
    },
    origin: site.origin,
    // confluence.js writes Cloud's paths (/wiki/rest/api/…); Data Center serves the same REST v1 at <base>/rest/api/….
    path: (p) => `${context}${p.replace(/^\/wiki(?=\/)/, "")}`,
    authorization: `Bearer ${o.token}`,
    refused,
    example: "https://confluence.example.com",
  });
  /**
   * searchContentByCQL passes Cloud's `cursor`, not Data Center's `start`: this client adds the offset to the request
   * the SDK built.
   */
  const from = (offset: string | undefined): Client =>
    offset === undefined
      ? client
      : {
          sendRequest: <T>(r: SendRequestOptions<T>) => client.sendRequest<T>({ ...r, searchParams: { ...r.searchParams, start: offset } }),
        };
  /** An id of the listing's, as CQL takes it (digits only: a hostile answer cannot change the query). */
  const cqlId = (id: string) => {
    if (!/^\d{1,20}$/.test(id)) throw new Error(`Confluence listed an item whose id is not a number (${id.slice(0, 40)})`);
    return id;
  };

  return {
    onSite(relative) {
      const u = URL.parse(`${base}${relative.startsWith("/") ? "" : "/"}${relative}`);
      return u && u.origin === site.origin ? u : null;
    },

    async list() {
      // With anonymous access on, Data Center lets a revoked or unknown token through as the anonymous user
      // (CONFSERVER-98199): listings would then lack what only the token's user may see, and lose its documents.
      if ((await getCurrentUser(client)).type === "anonymous") throw new CredentialRefused(refused);
      const keys = o.spaces.map((k) => `"${k}"`).join(", ");
      const found = await everyResult(
        start,
        (s) =>
          searchByCQL(client, {
            cql: `type = space and space.key in (${keys})`,
            start: s === undefined ? undefined : Number(s),
            limit: LIMIT,
          }),
        (r) => (r.space?.key && o.spaces.includes(r.space.key) ? { key: r.space.key, name: r.space.name || r.space.key } : null),
      );
      const spaceNames = new Map<string, string>();
      for (const r of found) spaceNames.set(r.key, r.name);
      const items: ConfluenceItem[] = [];
      for (const key of o.spaces) {
        if (!spaceNames.has(key))
          throw new Error(`the space ${key} is not visible to this account (deleted, or its permission withdrawn): nothing was removed`);
        const listed = await everyResult(
          start,
          (s) =>
            searchContentByCQL(from(s), {
              cql: `space = "${key}" and type in (page, blogpost) order by lastmodified desc`,
              // One comma-separated value: Data Center reads the first `expand` only.
              expand: ["version,ancestors"],
              limit: LIMIT,
            }),
          (c): ConfluenceItem | null =>
            c.id && (c.type === "page" || c.type === "blogpost")
              ? {
                  type: c.type,
                  id: c.id,
                  title: c.title ?? c.id,
                  parentId: c.type === "page" ? (c.ancestors?.at(-1)?.id ?? null) : null,
                  version: c.version?.number ?? 0,
                  webui: c._links?.webui ?? "",
                  space: key,
                }
              : null,
        );
        addItems(items, listed);
      }
      return { items, spaceNames };
    },

    async view(item) {
      const res = await searchContentByCQL(client, { cql: `id = ${cqlId(item.id)}`, expand: ["body.view"], limit: 1 });
      const found = res.results.find((c) => c.id === item.id);
      if (!found) throw new ItemGone("no longer found with this credential (deleted, or its view permission withdrawn)");
      return found.body?.view?.value ?? "";
    },

    async attachments(item) {
      return everyResult(
        start,
        (s) =>
          searchContentByCQL(from(s), { cql: `type = attachment and container = ${cqlId(item.id)}`, expand: ["version"], limit: LIMIT }),
        (a) => {
          const size = Number(a.extensions?.fileSize);
          return a.id
            ? {
                id: a.id,
                title: a.title ?? "",
                version: a.version?.number ?? 0,
                size: Number.isFinite(size) ? size : undefined,
                webui: a._links?.webui,
                download: a._links?.download,
              }
            : null;
        },
      );
    },

    async download(_item, a) {
      // A link on the site (relative to its base), never another host's: the transport keeps requests to the site.
      if (!a.download?.startsWith("/") || a.download.startsWith("//")) throw new Error("Confluence gave no download link on the site");
      return client.sendRequest({ url: a.download, method: "GET", schema: BufferSchema }) as Promise<Uint8Array>;
    },
  };
}
