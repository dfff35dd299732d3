/**
 * What the Confluence source's two deployments share below the sync itself (./confluence.ts): the shape of what a
 * deployment's API answers (./confluence-cloud.ts: Cloud's REST v2; ./confluence-dc.ts: Data Center's REST v1 by
 * CQL), confluence.js's transport over ./sdk-fetch.ts, and the walk through a paginated listing.
 */
import { BufferSchema, type Client, type SendRequestOptions } from "confluence.js/core";
import { sourceLimits } from "@/lib/config";
import { CredentialRefused, ItemGone } from "./tree";

/** A page or blog post as the listing gives it: no body. */
export interface ConfluenceItem {
  type: "page" | "blogpost";
  id: string;
  title: string;
  parentId: string | null;
  version: number;
  /** Its page on the site, relative to the site's address. */
  webui: string;
  space: string;
}

interface ConfluenceAttachment {
  id: string;
  title: string;
  version: number;
  size?: number;
  webui?: string;
  /** Data Center: the file's link on the site (its REST API has no download). */
  download?: string;
}

/** One deployment's reads, each through confluence.js; an item gone for the credential throws ItemGone. */
export interface ConfluenceApi {
  /** The chosen spaces' pages and posts and each space's name; a space the credential cannot see fails it. */
  list(): Promise<{ items: ConfluenceItem[]; spaceNames: Map<string, string> }>;
  /** The item's body as Confluence renders it (view), HTML. */
  view(item: ConfluenceItem): Promise<string>;
  attachments(item: ConfluenceItem): Promise<ConfluenceAttachment[]>;
  download(item: ConfluenceItem, attachment: ConfluenceAttachment): Promise<Uint8Array>;
  /** A link of the site's (a page's webui), refused when it would lead elsewhere. */
  onSite(relative: string): URL | null;
}

/**
 * confluence.js's transport over sdkFetch: the SDK builds each request (`path` maps its path onto the deployment's)
 * and its schema checks each answer; a download (the SDK's BufferSchema) is read under SOURCE_MAX_BYTES, any other
 * answer under the API's cap.
 */
export function confluenceTransport(opts: {
  fetches: { api: typeof fetch; file: typeof fetch };
  origin: string;
  path: (sdkPath: string) => string;
  authorization: string;
  /** What a 401 says: which credential to enter again. */
  refused: string;
  /** The site's address as a user names it, for an answer that is not JSON. */
  example: string;
}): Client {
  return {
    async sendRequest<T>(o: SendRequestOptions<T>): Promise<T> {
      const url = new URL(opts.path(o.url), opts.origin);
      for (const [k, v] of Object.entries(o.searchParams ?? {}))
        for (const one of [v].flat()) if (one !== undefined && one !== null) url.searchParams.append(k, String(one));
      const file = (o.schema as unknown) === BufferSchema;
      const res = await (file ? opts.fetches.file : opts.fetches.api)(url, {
        method: o.method ?? "GET",
        headers: { accept: file ? "*/*" : "application/json", authorization: opts.authorization },
      });
      const what = `${o.method ?? "GET"} ${url.pathname}`;
      if (res.status === 401) throw new CredentialRefused(opts.refused);
      if (res.status === 403 || res.status === 404) throw new ItemGone(`HTTP ${res.status}: no longer readable with this credential`);
      if (res.status === 429) throw new Error(`Confluence kept answering HTTP 429 (rate limited) to ${what} after its Retry-After waits`);
      if (!res.ok) throw new Error(`Confluence answered HTTP ${res.status} to ${what}`);
      if (file) return new Uint8Array(await res.arrayBuffer()) as T;
      const data: unknown = await res.json().catch(() => {
        throw new Error(`Confluence's answer to ${what} is not JSON: is the URL the site (${opts.example})?`);
      });
      if (!o.schema) return data as T;
      const parsed = o.schema.safeParse(data);
      if (!parsed.success) throw new Error(`Confluence's answer to ${what} is not what its API reference describes`);
      return parsed.data;
    },
  };
}

/**
 * What `keep` makes of every result of a listing, following `_links.next`: the next answer is asked for with that
 * link's `param` (Cloud's opaque `cursor`, Data Center's `start` offset); at most SOURCE_MAX_LIST_PAGES answers, no
 * position asked twice, at most SOURCE_MAX_ITEMS results kept. Only the fields the sync uses are held: each answer is
 * dropped before the next is asked for, whatever a server sends.
 */
export async function everyResult<T, R>(
  param: "cursor" | "start",
  list: (position: string | undefined) => Promise<{ results?: T[]; _links?: { next?: string } }>,
  keep: (result: T) => R | null,
): Promise<R[]> {
  const { maxListPages, maxItems } = sourceLimits();
  const out: R[] = [];
  const seen = new Set<string>();
  let position: string | undefined;
  for (let n = 0; ; n++) {
    if (n >= maxListPages)
      throw new Error(`Confluence's listing did not end after ${maxListPages} pages (SOURCE_MAX_LIST_PAGES): nothing was removed`);
    const res = await list(position);
    for (const result of res.results ?? []) {
      const kept = keep(result);
      if (kept === null) continue;
      if (out.length >= maxItems) throw tooMany(maxItems);
      out.push(kept);
    }
    const next = res._links?.next ? (URL.parse(res._links.next, "http://x")?.searchParams.get(param) ?? undefined) : undefined;
    if (!next) return out;
    if (seen.has(next)) throw new Error(`Confluence's listing repeats a cursor after ${n + 1} pages: it would never end`);
    seen.add(next);
    position = next;
  }
}

const tooMany = (maxItems: number) => new Error(`Confluence lists more than ${maxItems} items (SOURCE_MAX_ITEMS): nothing was removed`);

/** Adds a space's listed items to the sync's, at most SOURCE_MAX_ITEMS in all. */
export function addItems(items: ConfluenceItem[], listed: readonly ConfluenceItem[]): void {
  const { maxItems } = sourceLimits();
  if (items.length + listed.length > maxItems) throw tooMany(maxItems);
  for (const item of listed) items.push(item);
}
