/**
 * What the hosted drives with a change feed share (Google Drive's `changes`, Microsoft Graph's `delta`): a kind says
 * how to read its chosen folders, one folder's children, one page of its change feed and one file (./google-drive.ts,
 * ./sharepoint.ts); this keeps the documents in step. The first sync takes the feed's cursor, then walks the chosen
 * folders; a later sync reads only the changes since the saved cursor and fetches only the files whose content or
 * name changed, keeping every other file without a request. Items are keyed by the service's id, so a rename or a
 * move is the same item (re-indexed under its new name; moved out of the chosen folders, gone). Which folders lie in
 * the chosen ones is kept between syncs (a tracked item per folder, with its parents), so a change names its place
 * without asking; a folder moved in is walked. A removed change (deleted, trashed, the permission withdrawn) and a
 * file the service no longer lets this credential read (ItemGone) lose their documents; a refused credential
 * (CredentialRefused) stops the sync, keeping every document. Listings and the feed are bounded by
 * SOURCE_MAX_LIST_PAGES, and a page token that repeats is an error: a listing that never ends fails the sync,
 * removing nothing.
 */
import { sourceLimits } from "@/lib/config";
import { sha256 } from "@/lib/ingest";
import type { SyncContext } from "./engine";
import { readable } from "./engine";
import { overLimit } from "./http";
import { CredentialRefused, ItemGone } from "./tree";

export interface DriveItem {
  id: string;
  /** The name to index it under (its extension picks the parser; a Google Doc's export extension added), or null: not read. */
  name: string | null;
  /** The folders it is in (ids). */
  parents: string[];
  folder: boolean;
  /** Gone from what this credential sees: deleted, trashed, or its permission withdrawn. */
  removed: boolean;
  /** Changes whenever its content does (an MD5, a cTag, a Google Doc's version). */
  version: string | null;
  size: number | null;
  /** Where it opens in the service: the "Original" link. */
  url: string;
  /** The service's type of it, when fetching depends on it (a Google Doc is exported). */
  type: string | null;
}

/** One page of a listing or of the change feed: its items and the token of the next page, or the feed's next cursor. */
export interface DrivePage {
  items: DriveItem[];
  next: string | null;
  /** The change feed's cursor for the next sync (on the feed's last page). */
  cursor?: string | null;
}

export interface DriveApi {
  /** The chosen folders (their ids; a missing one fails the sync). */
  roots(): Promise<string[]>;
  /** The change feed's cursor as of now (taken before a full walk, so what changes during it is read next time). */
  cursor(): Promise<string>;
  /** One page of the items directly in a folder. */
  children(folderId: string, page: string | null): Promise<DrivePage>;
  /** One page of the change feed from a cursor (the saved one, then each page's `next`). */
  changes(token: string): Promise<DrivePage>;
  fetch(item: DriveItem): Promise<Uint8Array>;
}

/** The saved cursor is too old for the service (Graph's 410 resyncRequired): the sync walks the folders again. */
export class CursorExpired extends Error {}

const CURSOR_KEY = "cursor";
const FILE = "file:";
const FOLDER = "folder:";
/** A file that failed (over SOURCE_MAX_BYTES, an error): kept with its listing, so the next sync tries it again. */
const RETRY = "retry:";

interface FileState {
  /** Content version, the name it is indexed under, its parents. */
  v: string | null;
  n: string;
  p: string[];
}

const parse = <T>(version: string | null | undefined): T | null => {
  try {
    return version ? (JSON.parse(version) as T) : null;
  } catch {
    return null;
  }
};

export async function syncDrive(ctx: SyncContext, api: DriveApi, service: string): Promise<{ note: string }> {
  const { maxListPages, maxItems } = sourceLimits();
  let pages = 0;
  /** What a sync holds of a listing or the feed (folders, the feed's last word on each item) stops at SOURCE_MAX_ITEMS. */
  const held = (what: string, size: number) => {
    if (size > maxItems)
      throw new Error(`the ${service} ${what} names more than ${maxItems} items (SOURCE_MAX_ITEMS): nothing was removed`);
  };
  /** Every page of a listing or feed, bounded, a repeated token refused. */
  async function* paged(what: string, first: string | null, read: (token: string | null) => Promise<DrivePage>) {
    const seen = new Set<string>();
    let token = first;
    for (;;) {
      if (++pages > maxListPages)
        throw new Error(`the ${service} ${what} did not end after ${maxListPages} pages (SOURCE_MAX_LIST_PAGES): nothing was removed`);
      const page = await read(token);
      yield page;
      if (!page.next) return;
      if (seen.has(page.next)) throw new Error(`the ${service} ${what} repeats a page token: it would never end; nothing was removed`);
      seen.add(page.next);
      token = page.next;
    }
  }

  const roots = new Set(await api.roots());
  /** The folders met so far, each with its parents. */
  const folders = new Map<string, string[]>();
  const inScope = (id: string, path = new Set<string>()): boolean => {
    if (roots.has(id)) return true;
    const parents = folders.get(id);
    if (!parents || path.has(id)) return false;
    path.add(id);
    return parents.some((p) => inScope(p, path));
  };
  let fetched = 0;
  let gone = 0;

  async function take(item: DriveItem): Promise<void> {
    const key = `${FILE}${item.id}`;
    if (ctx.seen(key)) return;
    if (!item.name || !readable(item.name)) return ctx.skip(key);
    // The key is the service's id: the reason names the file.
    const fail = async (why: string) => {
      ctx.fail(key, `${item.name}: ${why}`);
      await ctx.track(`${RETRY}${item.id}`, JSON.stringify(item));
    };
    if (item.size !== null && item.size > ctx.maxBytes) return fail(overLimit(item.size, ctx.maxBytes));
    const state: FileState = { v: item.version, n: item.name, p: item.parents };
    const version = JSON.stringify(state);
    const before = ctx.previous.get(key);
    const was = parse<FileState>(before?.version);
    // The same content under the same name: kept, its place and link brought up to date without fetching it.
    if (before?.documentId && was && item.version && was.v === item.version && was.n === item.name) {
      ctx.keep(key, before.version === version && before.url === item.url ? undefined : { version, url: item.url });
      return;
    }
    let data: Uint8Array;
    try {
      data = await api.fetch(item);
      fetched++;
    } catch (err) {
      ctx.signal.throwIfAborted();
      if (err instanceof CredentialRefused) throw err;
      if (err instanceof ItemGone) {
        gone++;
        return;
      }
      return fail(err instanceof Error ? err.message : String(err));
    }
    // The name is part of what is indexed (the title): a rename alone is a change.
    const fingerprint = sha256(Buffer.concat([Buffer.from(`${item.name}\u0000`), data]));
    await ctx.ingest({ key, url: item.url, name: item.name, data, version, fingerprint });
  }

  /** Everything under these folders, listed. */
  async function walk(start: string[]): Promise<void> {
    const queue = [...start];
    const walked = new Set<string>();
    while (queue.length) {
      const folder = queue.shift()!;
      if (walked.has(folder)) continue;
      walked.add(folder);
      for await (const page of paged("folder listing", null, (t) => api.children(folder, t)))
        for (const item of page.items) {
          if (item.removed) continue;
          if (item.folder) {
            folders.set(item.id, item.parents.length ? item.parents : [folder]);
            held("folder listing", folders.size);
            queue.push(item.id);
          } else await take(item);
        }
    }
  }

  let saved = ctx.previous.get(CURSOR_KEY)?.version ?? null;
  let cursor = "";
  let changed = 0;
  // The last state of each item the feed names.
  const latest = new Map<string, DriveItem>();
  if (saved) {
    try {
      let next: string | null = null;
      for await (const page of paged("change feed", saved, (t) => api.changes(t ?? saved!))) {
        for (const item of page.items) {
          latest.set(item.id, item);
          held("change feed", latest.size);
        }
        if (page.cursor) next = page.cursor;
      }
      if (!next) throw new Error(`the ${service} change feed ended without a cursor for the next sync: nothing was removed`);
      cursor = next;
    } catch (err) {
      if (!(err instanceof CursorExpired)) throw err;
      saved = null;
      latest.clear();
    }
  }
  if (!saved) {
    cursor = await api.cursor();
    await walk([...roots]);
  } else {
    for (const [key, item] of ctx.previous)
      if (key.startsWith(FOLDER)) folders.set(key.slice(FOLDER.length), parse<string[]>(item.version) ?? []);
    const before = new Set([...folders.keys()].filter((id) => inScope(id)));
    changed = latest.size;
    for (const item of latest.values()) {
      if (item.removed) folders.delete(item.id);
      else if (item.folder) folders.set(item.id, item.parents);
    }
    // Folders that came into the chosen ones (moved in, or made): walked, as their files may not be in the feed.
    await walk([...folders.keys()].filter((id) => !before.has(id) && inScope(id)));
    for (const item of latest.values()) if (!item.folder && !item.removed && item.parents.some((p) => inScope(p))) await take(item);
    for (const [key, record] of ctx.previous) {
      const failed = key.startsWith(RETRY) && !latest.has(key.slice(RETRY.length)) ? parse<DriveItem>(record.version) : null;
      if (failed?.parents.some((p) => inScope(p))) await take(failed);
    }
    for (const [key, item] of ctx.previous) {
      if (!key.startsWith(FILE) || ctx.seen(key) || latest.has(key.slice(FILE.length))) continue;
      const parents = parse<FileState>(item.version)?.p ?? [];
      if (parents.some((p) => inScope(p))) ctx.keep(key);
    }
  }
  for (const [id, parents] of folders) if (inScope(id)) await ctx.track(`${FOLDER}${id}`, JSON.stringify(parents));
  await ctx.track(CURSOR_KEY, cursor);
  const what = saved ? `${changed} changes read` : `${roots.size} folders walked`;
  return { note: `${what}, ${fetched} files fetched${gone ? `, ${gone} no longer readable` : ""} (${pages} listing pages)` };
}
