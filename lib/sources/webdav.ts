/**
 * WebDAV folders (Nextcloud, ownCloud, SharePoint's WebDAV, Box, a NAS, Apache mod_dav): each folder listed with
 * PROPFIND Depth 1 (the whole tree at once, Depth infinity, is what servers refuse or time out on), a file fetched
 * with GET only when its ETag (or, without one, its size and modification time) changed. Basic auth with a user
 * name and a password or app password. Every request goes through ./http.ts, so a self-hosted server is held to
 * the public-address rule like a web source, and a redirect may not leave the folder's origin (the credential goes
 * nowhere else); a 429 or 503 is waited out as its Retry-After says. No WebDAV package: the protocol needed is one
 * request body and the multistatus answer, read with linkedom (already the HTML parser's), over the guarded
 * transport the other kinds use; the npm clients bring their own fetch, which the public-address rule cannot reach.
 */
import { DOMParser } from "linkedom";
import type { Connector } from "./engine";
import { type FetchedResponse, patientRequest } from "./http";
import type { SourceConfig } from "./schema";
import { CredentialRefused, ItemGone, type TreeEntry, walkTree } from "./tree";

type WebdavConfig = Extract<SourceConfig, { kind: "webdav" }>;

/** The largest answer to one folder's PROPFIND. */
const MAX_LISTING_BYTES = 16 * 1024 * 1024;

const PROPFIND = `<?xml version="1.0" encoding="utf-8"?>
<d:propfind xmlns:d="DAV:"><d:prop><d:resourcetype/><d:getetag/><d:getlastmodified/><d:getcontentlength/></d:prop></d:propfind>`;

/** An element's name without its namespace prefix ("lp1:getetag" → "getetag"). */
const local = (el: { tagName: string }) => el.tagName.replace(/^.*:/, "").toLowerCase();

interface Child {
  tagName: string;
  textContent: string | null;
  children: ArrayLike<Child>;
}
const childrenNamed = (el: Child, name: string): Child[] => Array.from(el.children).filter((c) => local(c) === name);
const first = (el: Child, name: string): Child | undefined => childrenNamed(el, name)[0];
/** A descendant at any depth (linkedom's selectors do not know namespaces). */
function find(el: Child, name: string): Child | undefined {
  for (const c of Array.from(el.children)) {
    if (local(c) === name) return c;
    const deeper = find(c, name);
    if (deeper) return deeper;
  }
  return undefined;
}

/** The path as the server spells it, decoded, or null when it does not decode. */
function decoded(pathname: string): string | null {
  try {
    return decodeURIComponent(pathname);
  } catch {
    return null;
  }
}

interface Listed {
  href: URL;
  folder: boolean;
  etag: string | null;
  lastModified: string | null;
  size: number | null;
}

/** The responses of a multistatus answer, each with the properties its 200 propstat gave. */
function parseMultistatus(xml: string, base: URL): Listed[] {
  const doc = new DOMParser().parseFromString(xml, "text/xml") as unknown as { documentElement: Child | null };
  const root = doc.documentElement;
  if (!root || local(root) !== "multistatus") throw new Error("the server's PROPFIND answer is not a WebDAV multistatus");
  const out: Listed[] = [];
  for (const response of childrenNamed(root, "response")) {
    const href = URL.parse(first(response, "href")?.textContent?.trim() ?? "", base);
    if (!href) continue;
    const ok = childrenNamed(response, "propstat").find((p) => /\s200\s/.test(` ${first(p, "status")?.textContent ?? ""} `));
    const prop = ok ? first(ok, "prop") : undefined;
    const text = (name: string) => (prop ? find(prop, name)?.textContent?.trim() || null : null);
    const type = prop ? first(prop, "resourcetype") : undefined;
    const size = Number(text("getcontentlength"));
    out.push({
      href,
      folder: !!type && !!find(type, "collection"),
      etag: text("getetag"),
      lastModified: text("getlastmodified"),
      size: Number.isFinite(size) && text("getcontentlength") !== null ? size : null,
    });
  }
  return out;
}

export const webdavConnector: Connector = async (ctx) => {
  const config = ctx.source.config as WebdavConfig;
  const root = new URL(config.url);
  if (!root.pathname.endsWith("/")) root.pathname += "/";
  const rootPath = decoded(root.pathname) ?? root.pathname;
  const password = ctx.secrets.password;
  if (!password) throw new Error("this source has no password");
  const authorization = `Basic ${Buffer.from(`${config.username}:${password}`, "utf8").toString("base64")}`;
  // The credential goes only where the folder is.
  const inside = (u: URL) => u.origin === root.origin && u.pathname.startsWith(root.pathname);

  const request = (url: URL, method: string, extra: { headers?: Record<string, string>; body?: string; maxBytes?: number } = {}) =>
    patientRequest(url, {
      method,
      headers: { authorization, ...extra.headers },
      body: extra.body,
      maxBytes: extra.maxBytes,
      followTo: inside,
      signal: ctx.signal,
    });

  /** Throws what a non-success status means for this request. */
  const refuse = (res: FetchedResponse & { retries: number }, what: string): never => {
    const where = decoded(res.url.pathname) ?? res.url.pathname;
    if (res.status === 401)
      throw new CredentialRefused(
        `the WebDAV server refused the credential (HTTP 401) for ${where}: the password or app password was revoked, expired or changed; enter it again`,
      );
    if (res.status === 403 || res.status === 404 || res.status === 410)
      throw new ItemGone(`HTTP ${res.status}: no longer readable with this credential`);
    const retried = res.retries ? ` after ${res.retries} retries` : "";
    throw new Error(`the WebDAV server answered HTTP ${res.status} to ${what} ${where}${retried}`);
  };

  const entryOf = (item: Listed): TreeEntry | null => {
    const path = decoded(item.href.pathname);
    // Only what lies under the root, on its origin: a hostile listing cannot lead the credential elsewhere.
    if (!path || item.href.origin !== root.origin || !path.startsWith(rootPath)) return null;
    const rel = path.slice(rootPath.length).replace(/\/+$/, "");
    if (!rel || rel.split("/").some((s) => s === "." || s === "..")) return null;
    const url = new URL(item.href);
    url.hash = "";
    url.search = "";
    if (item.folder && !url.pathname.endsWith("/")) url.pathname += "/";
    // Weak or strong, the same tag is the same version: Apache calls a file's ETag weak for the first second after it
    // was written, and strong from then on.
    const etag = item.etag?.replace(/^W\//, "") ?? null;
    const version = etag ?? (item.lastModified ? `${item.lastModified} ${item.size ?? ""}` : null);
    return {
      key: item.folder ? `${rel}/` : rel,
      name: rel.split("/").pop()!,
      url: url.href,
      version,
      folder: item.folder,
      size: item.size,
    };
  };

  const tree = {
    async list(folder: TreeEntry | null): Promise<TreeEntry[]> {
      const url = folder ? new URL(folder.url) : root;
      const res = await request(url, "PROPFIND", {
        headers: { depth: "1", "content-type": 'application/xml; charset="utf-8"' },
        body: PROPFIND,
        maxBytes: MAX_LISTING_BYTES,
      });
      if (res.status !== 207) refuse(res, "PROPFIND");
      const self = folder?.key ?? "";
      const entries: TreeEntry[] = [];
      for (const item of parseMultistatus(res.body.toString("utf8"), url)) {
        const entry = entryOf(item);
        // The folder itself, and anything not directly in it, are not its entries.
        if (!entry || entry.key === self) continue;
        const parent = entry.key.replace(/[^/]+\/?$/, "");
        if (parent === self) entries.push(entry);
      }
      return entries;
    },
    async fetch(file: TreeEntry): Promise<Uint8Array> {
      const res = await request(new URL(file.url), "GET", { maxBytes: ctx.maxBytes });
      if (res.status !== 200) refuse(res, "GET");
      return res.body;
    },
  };
  return walkTree(ctx, tree);
};
