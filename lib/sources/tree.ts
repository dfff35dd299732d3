/**
 * What every drive-like source shares (WebDAV now; Drive, SharePoint/OneDrive, Nextcloud's own API on the same
 * piece): a kind says only how to list one folder and how to fetch one file (./webdav.ts); this walks the folders
 * one listing at a time, keeps a file whose version (ETag…) is the one indexed without fetching it, fetches and
 * ingests the others, and follows what is gone. A folder listed twice (a cycle, or a server that answers the same
 * folder under two names) is walked once; the listings of one sync stop at SOURCE_MAX_LIST_PAGES, so a server that
 * invents folders forever ends the sync with an error, removing nothing. An item or folder the credential may no
 * longer read (ItemGone: 403, 404) loses its documents like a deleted one; a refused credential (CredentialRefused)
 * stops the sync, keeping every document; any other failure fails that item (or keeps that folder's documents).
 */
import { sourceLimits } from "@/lib/config";
import type { Connector } from "./engine";
import { readable } from "./engine";
import { overLimit } from "./http";

type SyncContext = Parameters<Connector>[0];

export interface TreeEntry {
  /** The path under the source's root, "/"-separated, decoded ("手册/假期.md"); a folder's ends with "/". */
  key: string;
  /** The file's own name (its extension picks the parser). */
  name: string;
  /** Where it opens in its service: the "Original" link. */
  url: string;
  /** Changes whenever its content does (an ETag, a modification time with the size). */
  version: string | null;
  folder: boolean;
  /** Bytes, when the listing says (checked against SOURCE_MAX_BYTES before fetching). */
  size: number | null;
}

export interface Tree {
  /** The entries directly in a folder (null: the root). */
  list(folder: TreeEntry | null): Promise<TreeEntry[]>;
  fetch(file: TreeEntry): Promise<Uint8Array>;
}

/** The item or folder is no longer there for this credential (deleted, or its permission withdrawn). */
export class ItemGone extends Error {}
/** The service refused the credential itself (revoked, expired, wrong): the sync stops, nothing removed. */
export class CredentialRefused extends Error {}

/** Notes of one run (folders that could not be read, items gone for the credential) listed at most. */
const MAX_NOTED = 5;

export async function walkTree(ctx: SyncContext, tree: Tree): Promise<{ note: string }> {
  const { maxListPages } = sourceLimits();
  const pending: (TreeEntry | null)[] = [null];
  const queued = new Set<string>([""]);
  const noted: string[] = [];
  let notes = 0;
  const note = (s: string) => {
    if (notes++ < MAX_NOTED) noted.push(s);
  };
  let listings = 0;
  let files = 0;
  while (pending.length) {
    const folder = pending.shift()!;
    if (++listings > maxListPages)
      throw new Error(`the folder listing did not end after ${maxListPages} folders (SOURCE_MAX_LIST_PAGES): nothing was removed`);
    let entries: TreeEntry[];
    try {
      entries = await tree.list(folder);
    } catch (err) {
      // The root must be listed: without it nothing can be told gone.
      if (!folder || err instanceof CredentialRefused) throw err;
      const why = err instanceof Error ? err.message : String(err);
      note(`${folder.key} (${why})`);
      // Gone for this credential: its documents go. Unreadable this time: they stay.
      if (!(err instanceof ItemGone)) for (const key of ctx.previous.keys()) if (key.startsWith(folder.key)) ctx.keep(key);
      continue;
    }
    for (const entry of entries) {
      if (entry.folder) {
        if (queued.has(entry.key)) continue;
        queued.add(entry.key);
        if (queued.size > maxListPages)
          throw new Error(`the folder listing did not end after ${maxListPages} folders (SOURCE_MAX_LIST_PAGES): nothing was removed`);
        pending.push(entry);
        continue;
      }
      files++;
      if (ctx.seen(entry.key)) continue;
      if (!readable(entry.name)) {
        ctx.skip(entry.key);
        continue;
      }
      if (entry.size !== null && entry.size > ctx.maxBytes) {
        ctx.fail(entry.key, overLimit(entry.size, ctx.maxBytes));
        continue;
      }
      const before = ctx.previous.get(entry.key);
      if (before?.documentId && entry.version && before.version === entry.version && before.url === entry.url) {
        ctx.keep(entry.key);
        continue;
      }
      let data: Uint8Array;
      try {
        data = await tree.fetch(entry);
      } catch (err) {
        if (err instanceof CredentialRefused) throw err;
        const why = err instanceof Error ? err.message : String(err);
        if (err instanceof ItemGone) note(`${entry.key} (${why})`);
        else ctx.fail(entry.key, why);
        continue;
      }
      await ctx.ingest({ key: entry.key, url: entry.url, name: entry.name, data, version: entry.version });
    }
  }
  const gone = notes ? `; ${notes} not readable: ${noted.join(", ")}${notes > MAX_NOTED ? ", …" : ""}` : "";
  return { note: `${files} files in ${listings} folders${gone}` };
}

/**
 * An item's title with the titles of the items above it, top first ("Grandparent", "Parent", "Page"): `above`
 * gives the one above (none at the top); a cycle or a chain deeper than ten titles is cut.
 */
export function titlesDownTo<T extends { id: string; title: string }>(item: T, above: (t: T) => T | undefined): string[] {
  const titles = [item.title];
  const met = new Set([item.id]);
  for (let up = above(item); up && !met.has(up.id) && titles.length < 10; up = above(up)) {
    titles.unshift(up.title);
    met.add(up.id);
  }
  return titles;
}
