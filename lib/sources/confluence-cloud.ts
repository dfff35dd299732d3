/**
 * Confluence Cloud's reads for the Confluence source (./confluence.ts), through confluence.js's REST v2 functions
 * (and v1's attachment download, which v2 lacks): the site is https://example.atlassian.net/wiki, the API's paths
 * start with /wiki, Basic auth with the account's e-mail and an API token. Listings are sorted by modification and
 * follow the opaque cursor in `_links.next`.
 */
import { createV1Client, createV2Client } from "confluence.js";
import { addItems, type ConfluenceApi, type ConfluenceItem, confluenceTransport, everyResult } from "./confluence-api";
import type { SyncContext } from "./engine";
import { sdkFetch } from "./sdk-fetch";

const LIMIT = 250;
const MEDIA_HOST = "https://api.media.atlassian.com";

export function cloudApi(
  ctx: Pick<SyncContext, "signal" | "maxBytes">,
  o: { url: string; spaces: string[]; username: string; token: string; maxAnswerBytes: number; onRequest: () => void },
): ConfluenceApi {
  const site = new URL(o.url);
  // The API's paths start with /wiki; a site named with it (…/wiki) or without is the same site.
  const prefix = site.pathname.replace(/\/+$/, "").replace(/\/wiki$/, "");
  const wiki = `${site.origin}${prefix}/wiki`;
  const client = confluenceTransport({
    fetches: {
      api: sdkFetch(ctx, { origins: [site.origin], maxBytes: o.maxAnswerBytes, onRequest: o.onRequest }),
      // Confluence Cloud answers a download with a redirect to Atlassian's media host.
      file: sdkFetch(ctx, {
        origins: [site.origin, ...(site.hostname.endsWith(".atlassian.net") ? [MEDIA_HOST] : [])],
        onRequest: o.onRequest,
      }),
    },
    origin: site.origin,
    path: (p) => `${prefix}${p}`,
    authorization: `Basic ${Buffer.from(`${o.username}:${o.token}`, "utf8").toString("base64")}`,
    refused:
      "Confluence refused the credential (HTTP 401): the API token was revoked or expired, or the e-mail changed; enter the token again",
    example: "https://example.atlassian.net/wiki",
  });
  const confluence = createV2Client(client);
  // v2 has no download: v1's (the same transport) redirects to the file.
  const files = createV1Client(client).contentAttachments;
  const cursor = "cursor" as const;

  return {
    onSite(relative) {
      const u = URL.parse(`${wiki}${relative.startsWith("/") ? "" : "/"}${relative}`);
      return u && u.origin === site.origin ? u : null;
    },

    async list() {
      const spaces = await everyResult(
        cursor,
        (c) => confluence.space.getSpaces({ keys: o.spaces, cursor: c, limit: LIMIT }),
        (s) => (s.key && o.spaces.includes(s.key) ? { key: s.key, id: s.id, name: s.name } : null),
      );
      const items: ConfluenceItem[] = [];
      const spaceNames = new Map<string, string>();
      for (const key of o.spaces) {
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
          }): ConfluenceItem | null =>
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
              ? await everyResult(
                  cursor,
                  (c) => confluence.page.getPagesInSpace({ id, sort: "-modified-date", status: ["current"], cursor: c, limit: LIMIT }),
                  keep,
                )
              : await everyResult(
                  cursor,
                  (c) =>
                    confluence.blogPost.getBlogPostsInSpace({ id, sort: "-modified-date", status: ["current"], cursor: c, limit: LIMIT }),
                  keep,
                );
          addItems(items, listed);
        }
      }
      return { items, spaceNames };
    },

    async view(item) {
      const full =
        item.type === "page"
          ? await confluence.page.getPageById({ id: Number(item.id), bodyFormat: "view" })
          : await confluence.blogPost.getBlogPostById({ id: Number(item.id), bodyFormat: "view" });
      return full.body?.view?.value ?? "";
    },

    async attachments(item) {
      return everyResult(
        cursor,
        (c) =>
          item.type === "page"
            ? confluence.attachment.getPageAttachments({ id: Number(item.id), cursor: c, limit: LIMIT })
            : confluence.attachment.getBlogpostAttachments({ id: Number(item.id), cursor: c, limit: LIMIT }),
        (a) =>
          a.id
            ? { id: a.id, title: a.title ?? "", version: a.version?.number ?? 0, size: a.fileSize ?? undefined, webui: a.webuiLink }
            : null,
      );
    },

    async download(item, a) {
      // The transport answers a download as bytes (a Uint8Array, never a bare ArrayBuffer).
      return (await files.downloadAttatchment({ id: item.id, attachmentId: a.id, version: a.version || undefined })) as Uint8Array;
    },
  };
}
