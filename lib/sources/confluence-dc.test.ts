/**
 * The Confluence source's Data Center deployment through confluence.js (REST v1 by CQL, a personal access token)
 * against the contract server's Data Center flavour (e2e/helpers/confluence-contract.ts, under the context path
 * /confluence), one server and one store for the file, the tests in order on one source: the same scenarios as
 * Cloud's (./confluence.test.ts) — first sync, an unchanged re-sync that reads no body again (the request log), an
 * edit, a move and a rename, a delete, a withdrawn permission, a 429 storm, a listing that never ends, a revoked token
 * (also when Data Center lets it through as the anonymous user) — and the settings each deployment takes.
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

const tempDir = tempDirs("confluence-dc-test-");
const ENV = { SOURCE_ALLOW_HOSTS: "127.0.0.1", SOURCE_SECRET_KEY: "test-source-secret-key-0123456789" };
const REFUSED = "Confluence refused the credential (HTTP 401): the personal access token was revoked or expired; enter the token again";

let wiki: ConfluenceContract;
let store: Store;
let source: SourceRecord;
beforeAll(async () => {
  process.env.DATA_DIR = await tempDir();
  Object.assign(process.env, ENV);
  wiki = await startConfluenceContract({ deployment: "data-center" });
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
      '<div class="table-wrap"><table class="confluenceTable"><tbody><tr><th>Years</th><th>Days</th></tr><tr><td>0-5</td><td>25</td></tr></tbody></table></div>',
    attachments: [{ id: "att2001", title: "carry-over.csv", mediaType: "text/csv", data: "year,days carried\n2026,5\n" }],
  });
  wiki.put({ id: "1003", type: "page", space: "ENG", title: "年假规定", parentId: "1001", html: "<p>员工每年有十五天带薪年假。</p>" });
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
const titles = async () => (await docs()).map((d) => d.title.replace(/ \([0-9a-f]{6}\)$/, "")).sort();
const textOf = async (title: string) => {
  const doc = (await docs()).find((d) => d.title.replace(/ \([0-9a-f]{6}\)$/, "") === title);
  return doc ? store.getDocumentText(doc.id) : null;
};
const logFrom = () => {
  const start = wiki.requests.length;
  return () => wiki.requests.slice(start);
};
/** Bodies and files read: a search by id, an attachment search, a download (the CQL as sent, decoded). */
const reads = (log: ConfluenceContract["requests"]) =>
  log
    .map((r) => new URL(r.url, "http://x"))
    .filter((u) => /^(id|type = attachment)/.test(u.searchParams.get("cql") ?? "") || u.pathname.includes("/download/"))
    .map((u) => (u.pathname.includes("/download/") ? u.pathname : `${u.pathname} ${u.searchParams.get("cql")}`));

describe("confluence source against the Confluence Data Center contract server, through confluence.js", () => {
  it("settings: Data Center takes the base URL and a personal access token alone; Cloud still needs the e-mail", () => {
    const dc = { kind: "confluence", deployment: "data-center", url: "https://confluence.example.com", spaces: ["ENG"], token: "x" };
    expect(sourceInputSchema.safeParse(dc).success).toBe(true);
    expect(sourceInputSchema.safeParse({ ...dc, username: "kb@example.com" }).error?.issues[0]?.message).toBe(
      "a Data Center personal access token goes without a username",
    );
    expect(sourceInputSchema.safeParse({ ...dc, deployment: "cloud" }).error?.issues[0]?.message).toBe(
      "username (the account's e-mail) is required for Confluence Cloud",
    );
    expect(sourceInputSchema.safeParse({ ...dc, deployment: "server" }).error?.issues[0]?.message).toBe(
      'deployment must be "cloud" or "data-center"',
    );
  });

  it("first sync: pages, blog posts and attachments of the chosen spaces, heading path kept; the token only as Bearer", async () => {
    const log = logFrom();
    const input = sourceInputSchema.parse({
      kind: "confluence",
      deployment: "data-center",
      url: wiki.site,
      spaces: ["ENG"],
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
    expect(await textOf("年假规定")).toContain("# Engineering › Handbook › 年假规定");
    expect(await textOf("carry-over")).toContain("2026");
    const links = await (await getSourceStore(store)).linksOf((await docs()).map((d) => d.id));
    expect([...links.values()].map((l) => l.url)).toContain(`${wiki.site}/display/ENG/Leave+policy`);
    expect(log().length).toBeGreaterThan(0);
    for (const r of log()) {
      expect(r.url.startsWith("/confluence/rest/api/") || r.url.startsWith("/confluence/download/attachments/")).toBe(true);
      expect(r.url).not.toContain(wiki.token);
      expect(r.url).not.toContain(encodeURIComponent(wiki.token));
      expect(r.auth).toBe(`Bearer ${wiki.token}`);
    }
    // Paged by start: the listing of ENG (5 items, 2 an answer) took three answers.
    const listings = log().filter((r) => /space = "ENG"/.test(new URL(r.url, "http://x").searchParams.get("cql") ?? ""));
    expect(listings.map((r) => new URL(r.url, "http://x").searchParams.get("start"))).toEqual([null, "2", "4"]);
    expect(log().some((r) => decodeURIComponent(r.url).includes('"HR"'))).toBe(false);
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
    expect(reads(log())).toEqual([
      "/confluence/rest/api/content/search id = 1004",
      "/confluence/rest/api/content/search type = attachment and container = 1004",
    ]);
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
    expect((await sync()).error).toBe(
      "Confluence kept answering HTTP 429 (rate limited) to GET /confluence/rest/api/user/current after its Retry-After waits",
    );
    expect(await titles()).toHaveLength(3);
    wiki.busy.length = 0;
  });

  it("a listing that never ends, or repeats its start, fails the sync, removing nothing", async () => {
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

  it("a revoked token stops the sync keeping every document, also when let through as the anonymous user; entered again, the sync goes on", async () => {
    wiki.revoke();
    expect((await sync()).error).toBe(REFUSED);
    expect(await titles()).toHaveLength(3);
    wiki.anonymousAccess = true;
    expect((await sync()).error).toBe(REFUSED);
    expect(await titles()).toHaveLength(3);
    wiki.anonymousAccess = false;
    wiki.issue("NjE0OTk2ODk1NzQ0Om5ldy1wYXQ");
    source = await updateSource(store, source, { token: "NjE0OTk2ODk1NzQ0Om5ldy1wYXQ" });
    expect(await sync()).toMatchObject({ unchanged: 3, error: null });
  });
});
