/**
 * The Confluence source through confluence.js against the Confluence Cloud contract server
 * (e2e/helpers/confluence-contract.ts), one server and one store for the file, the tests in order on one source:
 * first sync (pages, a blog post and an attachment, structure and "Space › Parent › Page" kept), a re-sync that
 * reads no body again (the server's request log), an edit, a delete, a move and a rename, a page whose permission was
 * withdrawn, a revoked token, a 429 storm and a listing that never ends.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConfluenceContract, startConfluenceContract } from "@/e2e/helpers/confluence-contract";
import { createOfflineEmbedder } from "@/lib/embed/offline";
import { openStore, type Store } from "@/lib/store";
import { tempDirs } from "@/lib/test-helpers/temp-dirs";
import { runningPromise } from "./engine";
import { sourceInputSchema } from "./schema";
import { addSource, listSourceViews, startSync, updateSource } from "./service";
import { getSourceStore, type SourceRecord } from "./store";

const tempDir = tempDirs("confluence-test-");
const ENV = { SOURCE_ALLOW_HOSTS: "127.0.0.1", SOURCE_SECRET_KEY: "test-source-secret-key-0123456789" };

let wiki: ConfluenceContract;
let store: Store;
let source: SourceRecord;
beforeAll(async () => {
  process.env.DATA_DIR = await tempDir();
  Object.assign(process.env, ENV);
  wiki = await startConfluenceContract();
  wiki.pageSize = 2;
  wiki.spaces.set("ENG", { id: "98001", key: "ENG", name: "Engineering" });
  wiki.spaces.set("HR", { id: "98002", key: "HR", name: "People" });
  wiki.put({ id: "1001", type: "page", space: "ENG", title: "Handbook", html: "<p>Everything the team agreed on.</p>" });
  wiki.put({
    id: "1002",
    type: "page",
    space: "ENG",
    title: "Leave policy",
    parentId: "1001",
    html:
      "<h2>Annual leave</h2><p>Staff get <strong>25 days</strong> of annual leave.</p>" +
      '<div class="table-wrap"><table class="confluenceTable"><tbody><tr><th>Years</th><th>Days</th></tr><tr><td>0-5</td><td>25</td></tr><tr><td>5+</td><td>28</td></tr></tbody></table></div>' +
      "<h2>Requests</h2><ul><li>Ask your lead<ul><li>in writing</li></ul></li></ul>" +
      '<div class="code panel"><pre class="syntaxhighlighter-pre">leave request --days 3</pre></div>' +
      '<p><img class="confluence-embedded-image" alt="The leave calendar" src="/wiki/download/attachments/1002/cal.png"></p>',
    attachments: [{ id: "att2001", title: "carry-over.csv", mediaType: "text/csv", data: "year,days carried\n2026,5\n" }],
  });
  wiki.put({
    id: "1003",
    type: "page",
    space: "ENG",
    title: "年假规定",
    parentId: "1001",
    html: "<h2>年假</h2><p>员工每年有十五天带薪年假。</p>",
  });
  wiki.put({ id: "1004", type: "page", space: "ENG", title: "Printer", html: "<p>The printer on floor 3 takes A4 only.</p>" });
  wiki.put({ id: "3001", type: "blogpost", space: "ENG", title: "Okapi news", html: "<p>The okapi gets leaves at noon.</p>" });
  wiki.put({ id: "5001", type: "page", space: "HR", title: "Not chosen", html: "<p>Another space.</p>" });
  store = await openStore({ uri: await tempDir(), embedder: createOfflineEmbedder(64) });
});
afterAll(async () => {
  for (const k of [...Object.keys(ENV), "SOURCE_MAX_LIST_PAGES"]) delete process.env[k];
  await store?.close();
  await wiki?.close();
});

const sync = async () => startSync(store, (await (await getSourceStore(store)).get(source.id))!);
const docs = async () => store.listDocuments({ kb: "default" });
/** Titles, an attachment's without the suffix that makes its stored file name unique. */
const titles = async () => (await docs()).map((d) => d.title.replace(/ \([0-9a-f]{6}\)$/, "")).sort();
const textOf = async (title: string) => {
  const doc = (await docs()).find((d) => d.title.replace(/ \([0-9a-f]{6}\)$/, "") === title);
  return doc ? store.getDocumentText(doc.id) : null;
};
const logFrom = () => {
  const start = wiki.requests.length;
  return () => wiki.requests.slice(start);
};
/** Bodies and files read: single pages and posts, attachment listings and downloads. */
const reads = (log: ConfluenceContract["requests"]) =>
  log.filter((r) => /\/(pages|blogposts)\/\d+(\?|\/attachments)|\/download/.test(r.url)).map((r) => r.url.replace(/\?.*/, ""));

describe("confluence source against the Confluence Cloud contract server, through confluence.js", () => {
  it("first sync: pages, blog posts and attachments of the chosen spaces, structure and heading path kept", async () => {
    const log = logFrom();
    const input = sourceInputSchema.parse({
      kind: "confluence",
      url: wiki.site,
      spaces: ["ENG"],
      username: wiki.email,
      token: wiki.token,
      scheduleMinutes: 0,
    });
    source = await addSource(store, "default", input, { admin: false });
    const run = (await runningPromise(source.id))!;
    expect(run).toMatchObject({ added: 6, failed: [], error: null });
    expect(await titles()).toEqual(["Handbook", "Leave policy", "Okapi news", "Printer", "carry-over", "年假规定"]);
    const policy = (await textOf("Leave policy"))!;
    expect(policy).toContain("# Engineering › Handbook › Leave policy");
    expect(policy).toContain("\n### Annual leave\n");
    expect(policy).toContain("| Years | Days |\n| --- | --- |\n| 0-5 | 25 |");
    expect(policy).toMatch(/-\s+Ask your lead\n\s+-\s+in writing/);
    expect(policy).toContain("leave request --days 3");
    expect(policy).toContain("_Image: The leave calendar_");
    expect(await textOf("年假规定")).toContain("员工每年有十五天带薪年假。");
    expect(await textOf("carry-over")).toContain("2026");
    const links = await (await getSourceStore(store)).linksOf((await docs()).map((d) => d.id));
    expect([...links.values()].map((l) => l.url)).toContain(`${wiki.site}/spaces/ENG/pages/1002/Leave%2Bpolicy`);
    for (const r of log()) {
      expect(r.url).not.toContain(wiki.token);
      expect(r.url).not.toContain(encodeURIComponent(wiki.token));
      expect(r.auth).toBe(`Basic ${Buffer.from(`${wiki.email}:${wiki.token}`).toString("base64")}`);
    }
    expect(log().some((r) => r.url.includes("/spaces/98002/"))).toBe(false);
    expect(JSON.stringify(await listSourceViews(store, "default"))).not.toContain(wiki.token);
  });

  it("an unchanged re-sync reads the listings only: no body, attachment listing or download", async () => {
    const log = logFrom();
    expect(await sync()).toMatchObject({ added: 0, updated: 0, removed: 0, unchanged: 6, error: null });
    expect(reads(log())).toEqual([]);
  });

  it("an edit is read again, that page alone", async () => {
    wiki.edit("1004", { html: "<p>The printer on floor 3 now takes A3 too.</p>" });
    const log = logFrom();
    expect(await sync()).toMatchObject({ updated: 1, unchanged: 5, error: null });
    expect(reads(log())).toEqual(["/wiki/api/v2/pages/1004", "/wiki/api/v2/pages/1004/attachments"]);
    expect(await textOf("Printer")).toContain("takes A3 too");
  });

  it("a move (no new version) and a rename: the document follows under its new heading path and title", async () => {
    wiki.move("1003", "1002");
    expect(await sync()).toMatchObject({ updated: 1, removed: 0, error: null });
    expect(await textOf("年假规定")).toContain("# Engineering › Handbook › Leave policy › 年假规定");
    wiki.edit("1003", { title: "年假规定 2026" });
    expect(await sync()).toMatchObject({ updated: 1, removed: 0, error: null });
    expect(await titles()).toContain("年假规定 2026");
    expect(await titles()).not.toContain("年假规定");
  });

  it("a deleted page loses its document", async () => {
    wiki.content.get("1004")!.trashed = true;
    expect(await sync()).toMatchObject({ removed: 1, error: null });
    expect(await titles()).not.toContain("Printer");
  });

  it("a page whose view permission was withdrawn loses its document and its attachment's; the others stay", async () => {
    wiki.content.get("1002")!.restricted = true;
    expect(await sync()).toMatchObject({ removed: 2, error: null });
    expect(await titles()).toEqual(["Handbook", "Okapi news", "年假规定 2026"]);
  });

  it("a 429 storm is waited out as Retry-After says; one that outlasts the retries fails the sync, removing nothing", async () => {
    wiki.busy.push("0", "1", "0");
    expect(await sync()).toMatchObject({ unchanged: 3, error: null });
    wiki.busy.push("0", "0", "0", "0");
    const stormy = await sync();
    expect(stormy.error).toBe("Confluence kept answering HTTP 429 (rate limited) to GET /wiki/api/v2/spaces after its Retry-After waits");
    expect(await titles()).toHaveLength(3);
    wiki.busy.length = 0;
  });

  it("a listing that never ends, or repeats its cursor, fails the sync, removing nothing", async () => {
    process.env.SOURCE_MAX_LIST_PAGES = "4";
    try {
      wiki.endless = "new";
      expect((await sync()).error).toBe("Confluence's listing did not end after 4 pages (SOURCE_MAX_LIST_PAGES): nothing was removed");
      wiki.endless = "same";
      expect((await sync()).error).toBe("Confluence's listing repeats a cursor after 2 pages: it would never end");
      expect(await titles()).toHaveLength(3);
    } finally {
      wiki.endless = null;
      delete process.env.SOURCE_MAX_LIST_PAGES;
    }
  });

  it("a listing that never ends with new items every page holds at most SOURCE_MAX_ITEMS of them, removing nothing", async () => {
    process.env.SOURCE_MAX_LIST_PAGES = "40";
    process.env.SOURCE_MAX_ITEMS = "15";
    const from = logFrom();
    try {
      wiki.endless = "items";
      expect((await sync()).error).toBe("Confluence lists more than 15 items (SOURCE_MAX_ITEMS): nothing was removed");
      // Stopped within the eighth page of two, not at the 40th: what a sync holds of a listing is capped by items, not pages.
      expect(from().filter((r) => /^\/wiki\/api\/v2\/spaces\/\d+\/pages/.test(r.url))).toHaveLength(8);
      expect(await titles()).toHaveLength(3);
    } finally {
      wiki.endless = null;
      delete process.env.SOURCE_MAX_LIST_PAGES;
      delete process.env.SOURCE_MAX_ITEMS;
    }
  });

  it("a revoked API token stops the sync keeping every document; entered again by PATCH, the sync goes on", async () => {
    wiki.revoke();
    const refused = await sync();
    expect(refused.error).toBe(
      "Confluence refused the credential (HTTP 401): the API token was revoked or expired, or the e-mail changed; enter the token again",
    );
    expect(await titles()).toHaveLength(3);
    wiki.issue("ATATT3xFfGF0-new-token");
    source = await updateSource(store, source, { token: "ATATT3xFfGF0-new-token" });
    expect(await sync()).toMatchObject({ unchanged: 3, error: null });
  });

  it("a hostile body nested past the HTML depth limit fails alone; the space's other pages are indexed", async () => {
    wiki.spaces.set("LAB", { id: "98003", key: "LAB", name: "Lab" });
    wiki.put({ id: "7001", type: "page", space: "LAB", title: "Deep", html: `${"<div>".repeat(300)}deep${"</div>".repeat(300)}` });
    wiki.put({ id: "7002", type: "page", space: "LAB", title: "Lab rules", html: "<p>Goggles on at all times.</p>" });
    const input = sourceInputSchema.parse({
      kind: "confluence",
      url: wiki.site,
      spaces: ["LAB"],
      username: wiki.email,
      token: wiki.token,
      scheduleMinutes: 0,
    });
    const lab = await addSource(store, "default", input, { admin: false });
    const run = (await runningPromise(lab.id))!;
    expect(run).toMatchObject({ added: 1, error: null });
    expect(run.failed).toEqual([
      { item: "page:7001", reason: "its body nests elements more than 256 levels deep; it cannot be read safely" },
    ]);
    expect(await titles()).toContain("Lab rules");
  });
});
