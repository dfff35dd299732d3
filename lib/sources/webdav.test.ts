/**
 * The WebDAV source against a real Apache mod_dav (e2e/helpers/apache-dav.ts), started once for the file: first
 * sync, a re-sync that fetches only what changed (read from Apache's access log), an edit, a delete and a rename,
 * a folder whose permission was withdrawn, a revoked password, a busy server (429/503 with Retry-After, through a
 * proxy), a listing that never ends, SOURCE_MAX_BYTES and the public-address rule. Each test has a folder of its own.
 */
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { apacheMissing, type DavServer, startApacheDav } from "@/e2e/helpers/apache-dav";
import { startBusyProxy } from "@/e2e/helpers/busy-proxy";
import { createOfflineEmbedder } from "@/lib/embed/offline";
import { openStore, type Store } from "@/lib/store";
import { tempDirs } from "@/lib/test-helpers/temp-dirs";
import { runningPromise } from "./engine";
import { sourceInputSchema } from "./schema";
import { openSecrets } from "./secrets";
import { addSource, listSourceViews, startSync, updateSource } from "./service";
import { getSourceStore, type SourceRecord } from "./store";

const tempDir = tempDirs("webdav-test-");
const KEY = "test-source-secret-key-0123456789";
const USER = "alice";
const PASSWORD = "s3cret-dav-Password";
const ENV = { SOURCE_ALLOW_HOSTS: "127.0.0.1", SOURCE_SECRET_KEY: KEY };
const missing = apacheMissing();

let dav: DavServer;
let store: Store;
beforeAll(async () => {
  if (missing) return;
  process.env.DATA_DIR = await tempDir();
  Object.assign(process.env, ENV);
  dav = await startApacheDav(await tempDir());
  await dav.setPassword(USER, PASSWORD);
});
afterAll(async () => {
  for (const k of [...Object.keys(ENV), "SOURCE_MAX_LIST_PAGES", "SOURCE_MAX_BYTES"]) delete process.env[k];
  await dav?.close();
});
beforeEach(async () => {
  if (missing) return;
  store = await openStore({ uri: await tempDir(), embedder: createOfflineEmbedder(64) });
  return () => store.close();
});

/** A folder of the test's own on the server, with these files (path → text). */
async function folder(name: string, files: Record<string, string>): Promise<string> {
  for (const [rel, text] of Object.entries(files)) await put(name, rel, text);
  return `${dav.origin}/${encodeURIComponent(name)}/`;
}
async function put(name: string, rel: string, text: string) {
  const file = path.join(dav.files, name, rel);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
}
const input = (url: string, extra: object = {}) =>
  sourceInputSchema.parse({ kind: "webdav", url, username: USER, password: PASSWORD, scheduleMinutes: 0, ...extra });
const add = async (url: string) => {
  const source = await addSource(store, "default", input(url), { admin: false });
  return { source, run: (await runningPromise(source.id))! };
};
const sync = async (source: SourceRecord) => startSync(store, (await (await getSourceStore(store)).get(source.id))!);
const titles = async () => (await store.listDocuments({ kb: "default" })).map((d) => d.title).sort();
const links = async () => {
  const docs = await store.listDocuments({ kb: "default" });
  const byId = await (await getSourceStore(store)).linksOf(docs.map((d) => d.id));
  return Object.fromEntries(docs.map((d) => [d.title, byId.get(d.id)?.url]));
};
/** The requests Apache answered from now on, each "METHOD /path STATUS". */
async function logFrom() {
  const start = (await dav.requests()).length;
  return async () => (await dav.requests()).slice(start);
}

describe.skipIf(missing)(`webdav source against Apache mod_dav${missing ? ` (skipped: ${missing})` : ""}`, () => {
  it("indexes a folder's files, re-syncs fetching only what changed, and follows an edit, a delete and a rename", async () => {
    const url = await folder("team", {
      "handbook.md": "# Handbook\n\nThe okapi team meets on Mondays.",
      "手册/假期.md": "# 年假规定\n\n员工每年有十五天带薪年假。",
      "notes.txt": "Narwhal notes: the tusk is a tooth.",
      "logo.gif": "GIF89a not a format the app reads",
      "sub/deep/tapir.md": "# Tapir\n\nTapirs are good swimmers.",
    });
    const log = await logFrom();
    const { source, run } = await add(url);
    expect(run).toMatchObject({ added: 4, skipped: 1, removed: 0, error: null });
    expect(run.note).toBe("5 files in 4 folders");
    expect(await titles()).toEqual(["Handbook", "Tapir", "notes", "年假规定"]);
    // The password is sealed, and never part of the source's config or view.
    expect(openSecrets(source.secret)).toEqual({ password: PASSWORD });
    expect(JSON.stringify(await listSourceViews(store, "default"))).not.toContain(PASSWORD);
    // "Original" is the file on the server.
    const original = Object.fromEntries(Object.entries(await links()).map(([t, u]) => [t, u && decodeURI(u)]));
    expect(original).toMatchObject({ Handbook: `${dav.origin}/team/handbook.md`, 年假规定: `${dav.origin}/team/手册/假期.md` });
    const first = await log();
    expect(first.filter((l) => l.startsWith("GET"))).toHaveLength(4);
    expect(first.filter((l) => l.startsWith("PROPFIND")).sort()).toEqual([
      "PROPFIND /team/ 207",
      "PROPFIND /team/\\xe6\\x89\\x8b\\xe5\\x86\\x8c/ 207",
      "PROPFIND /team/sub/ 207",
      "PROPFIND /team/sub/deep/ 207",
    ]);

    // Nothing changed: each folder listed once, no file fetched.
    const unchanged = await logFrom();
    expect(await sync(source)).toMatchObject({ added: 0, updated: 0, removed: 0, unchanged: 4, error: null });
    const second = await unchanged();
    expect(second.filter((l) => !l.startsWith("PROPFIND"))).toEqual([]);
    expect(second).toHaveLength(4);

    await put("team", "handbook.md", "# Handbook\n\nThe okapi team now meets on Tuesdays.");
    await rm(path.join(dav.files, "team", "notes.txt"));
    await rename(path.join(dav.files, "team", "sub", "deep", "tapir.md"), path.join(dav.files, "team", "sub", "tapir-moved.md"));
    const changed = await logFrom();
    expect(await sync(source)).toMatchObject({ added: 1, updated: 1, removed: 2, unchanged: 1, error: null });
    expect((await changed()).filter((l) => l.startsWith("GET"))).toEqual(["GET /team/handbook.md 200", "GET /team/sub/tapir-moved.md 200"]);
    expect(await titles()).toEqual(["Handbook", "Tapir", "年假规定"]);
    expect(await links()).toMatchObject({ Tapir: `${dav.origin}/team/sub/tapir-moved.md` });
    const handbook = (await store.listDocuments({ kb: "default" })).find((d) => d.title === "Handbook")!;
    expect(await store.getDocumentText(handbook.id)).toContain("Tuesdays");
  });

  it("a revoked password stops the sync with a clear error and keeps every document; entered again it syncs", async () => {
    const url = await folder("revoked", { "a.md": "# Alpha\n\nThe alpha page.", "b.md": "# Beta\n\nThe beta page." });
    const { source, run } = await add(url);
    expect(run).toMatchObject({ added: 2, error: null });
    await dav.setPassword(USER, "a-new-password");
    try {
      await rm(path.join(dav.files, "revoked", "b.md"));
      const refused = await sync(source);
      expect(refused.error).toMatch(/^the WebDAV server refused the credential \(HTTP 401\) for \/revoked\/: .*enter it again$/);
      expect(refused.error).not.toContain(PASSWORD);
      expect(refused.removed).toBe(0);
      expect(await titles()).toEqual(["Alpha", "Beta"]);
      const [view] = await listSourceViews(store, "default");
      expect(view.lastRun?.error).toMatch(/refused the credential/);

      const patched = await updateSource(store, source, { password: "a-new-password" });
      expect(await sync(patched)).toMatchObject({ removed: 1, unchanged: 1, error: null });
      expect(await titles()).toEqual(["Alpha"]);
    } finally {
      await dav.setPassword(USER, PASSWORD);
    }
  });

  it("a folder the account may no longer read loses its documents; the rest stay", async () => {
    const url = await folder("perm", { "open.md": "# Open\n\nOpen to all.", "hr/salaries.md": "# Salaries\n\nThe salary bands." });
    const { source, run } = await add(url);
    expect(run).toMatchObject({ added: 2, error: null });
    // Only bob may read hr/ from now on (Apache reads .htaccess on every request).
    await writeFile(path.join(dav.files, "perm", "hr", ".htaccess"), "Require user bob\n");
    try {
      const after = await sync(source);
      expect(after.note).toMatch(/1 not readable: hr\/ \(HTTP 403: no longer readable with this credential\)/);
      expect(after).toMatchObject({ removed: 1, unchanged: 1, error: null });
      expect(await titles()).toEqual(["Open"]);
    } finally {
      await rm(path.join(dav.files, "perm", "hr", ".htaccess"));
    }
  });

  it("waits out a 503 and a 429 with Retry-After; a server still busy, or listing forever, fails the sync removing nothing", async () => {
    await folder("busy", { "a.md": "# Alpha\n\nThe alpha page.", "loop/b.md": "# Beta\n\nThe beta page." });
    const proxy = await startBusyProxy(dav.origin);
    try {
      proxy.busy.push({ status: 503, retryAfter: "1" }, { status: 429, retryAfter: "0" });
      const { source, run } = await add(`${proxy.origin}/busy/`);
      expect(run).toMatchObject({ added: 2, error: null });
      expect(proxy.answered).toEqual(["PROPFIND /busy/ 503", "PROPFIND /busy/ 429"]);

      proxy.busy.push(...Array.from({ length: 4 }, () => ({ status: 503 as const, retryAfter: "0" })));
      const busy = await sync(source);
      expect(busy.error).toBe("the WebDAV server answered HTTP 503 to PROPFIND /busy/ after 3 retries");
      expect(await titles()).toEqual(["Alpha", "Beta"]);

      process.env.SOURCE_MAX_LIST_PAGES = "5";
      proxy.endless = "/busy/loop/";
      const endless = await sync(source);
      expect(endless.error).toBe("the folder listing did not end after 5 folders (SOURCE_MAX_LIST_PAGES): nothing was removed");
      expect(proxy.answered.filter((l) => l.startsWith("PROPFIND /busy/loop/"))).toHaveLength(4);
      expect(await titles()).toEqual(["Alpha", "Beta"]);
    } finally {
      delete process.env.SOURCE_MAX_LIST_PAGES;
      await proxy.close();
    }
  });

  it("fails a file over SOURCE_MAX_BYTES alone without fetching it, and refuses a private address an admin did not allow", async () => {
    const big = `# Big\n\n${"words ".repeat(400)}`;
    const url = await folder("sizes", { "small.md": "# Small\n\nA small page.", "big.md": big });
    process.env.SOURCE_MAX_BYTES = "1000";
    try {
      const log = await logFrom();
      const { run } = await add(url);
      expect(run).toMatchObject({ added: 1, error: null });
      expect(run.failed).toEqual([
        { item: "big.md", reason: `${big.length} bytes, larger than the limit of 1000 bytes (SOURCE_MAX_BYTES)` },
      ]);
      expect((await log()).filter((l) => l.startsWith("GET"))).toEqual(["GET /sizes/small.md 200"]);
    } finally {
      delete process.env.SOURCE_MAX_BYTES;
    }
    delete process.env.SOURCE_ALLOW_HOSTS;
    try {
      const log = await logFrom();
      await expect(add(url)).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/127\.0\.0\.1 is not a public address/) });
      expect(await log()).toEqual([]);
    } finally {
      process.env.SOURCE_ALLOW_HOSTS = ENV.SOURCE_ALLOW_HOSTS;
    }
  });
});
