/**
 * The MediaWiki source against a real MediaWiki (e2e/helpers/mediawiki.ts: Debian's package over SQLite, PHP's
 * built-in server), installed once for the file: first sync, a re-sync that parses nothing unchanged (the server's
 * request log), an edit, a delete and a move; a bot password, then revoked; a 503 with Retry-After and listings that
 * never end (a proxy in front); a page the account may no longer read.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startBusyProxy } from "@/e2e/helpers/busy-proxy";
import { mediawikiMissing, startMediaWiki, type Wiki } from "@/e2e/helpers/mediawiki";
import { createOfflineEmbedder } from "@/lib/embed/offline";
import { openStore, type Store } from "@/lib/store";
import { tempDirs } from "@/lib/test-helpers/temp-dirs";
import { runningPromise } from "./engine";
import { sourceInputSchema } from "./schema";
import { addSource, listSourceViews, removeSource, startSync } from "./service";
import { getSourceStore, type SourceRecord } from "./store";

const tempDir = tempDirs("mediawiki-test-");
const ENV = { SOURCE_ALLOW_HOSTS: "127.0.0.1", SOURCE_SECRET_KEY: "test-source-secret-key-0123456789" };
const missing = mediawikiMissing();

let wiki: Wiki;
let store: Store;
beforeAll(async () => {
  if (missing) return;
  process.env.DATA_DIR = await tempDir();
  Object.assign(process.env, ENV);
  wiki = await startMediaWiki(await tempDir());
  await wiki.edit(
    "Leave policy",
    "Intro.\n\n== Annual leave ==\nStaff get 25 days of annual leave.\n\n== Sick leave ==\nA note from day 3.",
  );
  await wiki.edit("年假规定", "== 年假 ==\n员工每年有十五天带薪年假。");
  await wiki.edit("Printer", "The printer on floor 3 takes A4 only.");
}, 120_000);
afterAll(async () => {
  for (const k of [...Object.keys(ENV), "SOURCE_MAX_LIST_PAGES"]) delete process.env[k];
  await wiki?.close();
});
beforeEach(async () => {
  if (missing) return;
  store = await openStore({ uri: await tempDir(), embedder: createOfflineEmbedder(64) });
  return () => store.close();
});

const add = async (extra: object = {}, api = wiki.api) => {
  const input = sourceInputSchema.parse({ kind: "mediawiki", url: api, scheduleMinutes: 0, ...extra });
  const source = await addSource(store, "default", input, { admin: false });
  return { source, run: (await runningPromise(source.id))! };
};
const sync = async (source: SourceRecord) => startSync(store, (await (await getSourceStore(store)).get(source.id))!);
const titles = async () => (await store.listDocuments({ kb: "default" })).map((d) => d.title).sort();
const textOf = async (title: string) => {
  const doc = (await store.listDocuments({ kb: "default" })).find((d) => d.title === title);
  return doc ? store.getDocumentText(doc.id) : null;
};
const since = (from: number) => wiki.requests().slice(from);

describe.skipIf(missing)(`mediawiki source against MediaWiki${missing ? ` (skipped: ${missing})` : ""}`, () => {
  it("indexes every page rendered; re-syncs parsing only what changed, following an edit, a delete and a move", async () => {
    let from = wiki.requests().length;
    const { source, run } = await add();
    expect(run).toMatchObject({ added: 4, error: null });
    expect(await titles()).toEqual(["Leave policy", "Main Page", "Printer", "年假规定"]);
    expect(await textOf("Leave policy")).toMatch(/Annual leave[\s\S]*25 days[\s\S]*Sick leave/);
    expect(await textOf("年假规定")).toContain("员工每年有十五天带薪年假。");
    expect(since(from).filter((r) => r.includes("action=parse"))).toHaveLength(4);
    const links = await (await getSourceStore(store)).linksOf((await store.listDocuments({ kb: "default" })).map((d) => d.id));
    expect([...links.values()].map((l) => decodeURI(l.url))).toContain(`${wiki.origin}/index.php/Leave_policy`);

    // Nothing changed: the pages listed, none parsed.
    from = wiki.requests().length;
    expect(await sync(source)).toMatchObject({ added: 0, updated: 0, removed: 0, unchanged: 4, error: null });
    const quiet = since(from);
    expect(quiet.length).toBeGreaterThan(0);
    expect(quiet.every((r) => r.includes("generator=allpages"))).toBe(true);

    await wiki.edit("Leave policy", "Intro.\n\n== Annual leave ==\nStaff get 27 days of annual leave.");
    await wiki.remove("Printer");
    await wiki.move("年假规定", "年假规定 2026");
    from = wiki.requests().length;
    expect(await sync(source)).toMatchObject({ added: 0, updated: 2, removed: 1, unchanged: 1, error: null });
    expect(since(from).filter((r) => r.includes("action=parse"))).toHaveLength(2);
    expect(await titles()).toEqual(["Leave policy", "Main Page", "年假规定 2026"]);
    expect(await textOf("Leave policy")).toContain("27 days");
    const moved = await (await getSourceStore(store)).linksOf((await store.listDocuments({ kb: "default" })).map((d) => d.id));
    expect([...moved.values()].map((l) => decodeURI(l.url))).toContain(`${wiki.origin}/index.php/年假规定_2026`);
    await removeSource(store, source);
  });

  it("logs in with a bot password; revoked, the sync stops with a clear error and keeps every page", async () => {
    const bot = await wiki.botPassword("kbsync");
    const { source, run } = await add(bot);
    expect(run).toMatchObject({ added: 3, error: null });
    expect(JSON.stringify(await listSourceViews(store, "default"))).not.toContain(bot.password);
    await wiki.revokeBotPasswords();
    const refused = await sync(source);
    expect(refused.error).toMatch(/^the wiki refused the login of Admin@kbsync \(Failed: .*must be reset\.\): .*enter it again$/);
    expect(refused.error).not.toContain(bot.password);
    expect(await titles()).toHaveLength(3);
  });

  it("waits out a 503 with Retry-After; a listing that never ends or repeats itself fails the sync", async () => {
    const proxy = await startBusyProxy(wiki.origin);
    try {
      proxy.busy.push({ status: 503, retryAfter: "0" });
      const { run } = await add({}, `${proxy.origin}/api.php`);
      expect(run).toMatchObject({ added: 3, error: null });
      expect(proxy.answered).toHaveLength(1);

      let n = 0;
      const listing = (token: string) => ({
        status: 200,
        type: "application/json",
        body: JSON.stringify({ continue: { gapcontinue: token, continue: "gapcontinue||" }, query: { pages: [] } }),
      });
      proxy.answer = (_m, url) => (url.includes("generator=allpages") ? listing(`Page${n++}`) : null);
      process.env.SOURCE_MAX_LIST_PAGES = "5";
      const endless = await add({}, `${proxy.origin}/api.php`);
      expect(endless.run.error).toBe("the wiki's listing did not end after 5 pages (SOURCE_MAX_LIST_PAGES)");
      proxy.answer = (_m, url) => (url.includes("generator=allpages") ? listing("Same") : null);
      const repeated = await add({}, `${proxy.origin}/api.php`);
      expect(repeated.run.error).toBe("the wiki's listing repeats a continuation after 2 pages: it would never end");
      expect(await titles()).toHaveLength(3);
    } finally {
      delete process.env.SOURCE_MAX_LIST_PAGES;
      await proxy.close();
    }
  });

  it("a page the account may no longer read loses its document at the next sync; the others stay, none parsed again", async () => {
    await wiki.edit("Salary bands", "The salary bands of 2026 are confidential.");
    const { source, run } = await add();
    expect(run).toMatchObject({ added: 4, error: null });
    expect(await titles()).toContain("Salary bands");
    // Only HR may read it from now on (an authorization rule of the wiki: its getUserPermissionsErrors hook).
    await wiki.forbidRead(["Salary bands"]);
    try {
      const from = wiki.requests().length;
      const after = await sync(source);
      expect(after).toMatchObject({ added: 0, updated: 0, removed: 1, unchanged: 3, error: null });
      expect(after.note).toMatch(/; 1 not readable by this account: Salary bands$/);
      expect(await titles()).toEqual(["Leave policy", "Main Page", "年假规定 2026"]);
      expect(since(from).filter((r) => r.includes("action=parse"))).toEqual([]);
    } finally {
      await wiki.forbidRead([]);
    }
  });
});
