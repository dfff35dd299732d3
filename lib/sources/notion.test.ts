/**
 * The Notion source through the official SDK against the Notion contract server (e2e/helpers/notion-contract.ts),
 * one server and one store for the file, the tests in order on one source: first sync (structure kept), a re-sync
 * that reads no page again (the server's request log), an edit, a delete, a move and a rename, a page no longer
 * shared, a revoked token, a 429 storm and a search that never ends.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { block, type NotionContract, startNotionContract, text } from "@/e2e/helpers/notion-contract";
import { createOfflineEmbedder } from "@/lib/embed/offline";
import { openStore, type Store } from "@/lib/store";
import { tempDirs } from "@/lib/test-helpers/temp-dirs";
import { runningPromise } from "./engine";
import { sourceInputSchema } from "./schema";
import { addSource, listSourceViews, startSync, updateSource } from "./service";
import { getSourceStore, type SourceRecord } from "./store";

const tempDir = tempDirs("notion-test-");
const ENV = { SOURCE_ALLOW_HOSTS: "127.0.0.1", SOURCE_SECRET_KEY: "test-source-secret-key-0123456789" };
const ROOT = "11111111-1111-4111-8111-000000000001";
const POLICY = "11111111-1111-4111-8111-000000000002";
const CJK = "11111111-1111-4111-8111-000000000003";
const ROW = "11111111-1111-4111-8111-000000000004";
const PRINTER = "11111111-1111-4111-8111-000000000005";

let notion: NotionContract;
let store: Store;
let source: SourceRecord;
beforeAll(async () => {
  process.env.DATA_DIR = await tempDir();
  Object.assign(process.env, ENV);
  notion = await startNotionContract();
  notion.pageSize = 2;
  notion.put({ id: ROOT, title: "Handbook", blocks: [block.p("Everything the team agreed on.")] });
  notion.put({
    id: POLICY,
    title: "Leave policy",
    parent: { page: ROOT },
    blocks: [
      block.h(1, "Annual leave"),
      block.p([text("Staff get "), text("25 days", { bold: true }), text(" of annual leave.")]),
      block.table([
        ["Years", "Days"],
        ["0-5", "25"],
        ["5+", "28"],
      ]),
      block.h(2, "Requests"),
      block.bullet("Ask your lead", [block.bullet("in writing"), block.todo("two weeks ahead", true)]),
      block.toggle("Exceptions", [block.p("Parental leave is separate.")]),
      block.code("bash", "leave request --days 3"),
      block.image("https://example.com/calendar.png", "The leave calendar"),
      block.p("# not a heading"),
    ],
  });
  notion.put({ id: CJK, title: "年假规定", blocks: [block.h(1, "年假"), block.p("员工每年有十五天带薪年假。")] });
  notion.put({
    id: ROW,
    title: "Okapi feeding",
    parent: { dataSource: "22222222-2222-4222-8222-000000000001" },
    properties: {
      Status: { id: "s", type: "select", select: { name: "Done" } },
      Keeper: { id: "k", type: "rich_text", rich_text: [text("Ana")] },
    },
    blocks: [block.p("The okapi gets leaves at noon.")],
  });
  notion.put({ id: PRINTER, title: "Printer", blocks: [block.p("The printer on floor 3 takes A4 only.")] });
  store = await openStore({ uri: await tempDir(), embedder: createOfflineEmbedder(64) });
});
afterAll(async () => {
  for (const k of [...Object.keys(ENV), "SOURCE_MAX_LIST_PAGES"]) delete process.env[k];
  await store?.close();
  await notion?.close();
});

const sync = async () => startSync(store, (await (await getSourceStore(store)).get(source.id))!);
const docs = async () => store.listDocuments({ kb: "default" });
const titles = async () => (await docs()).map((d) => d.title).sort();
const textOf = async (title: string) => {
  const doc = (await docs()).find((d) => d.title === title);
  return doc ? store.getDocumentText(doc.id) : null;
};
const logFrom = () => {
  const start = notion.requests.length;
  return () => notion.requests.slice(start);
};
const blockReads = (log: NotionContract["requests"]) => log.filter((r) => r.url.startsWith("/v1/blocks/")).map((r) => r.url.split("/")[3]);

describe("notion source against the Notion contract server, through @notionhq/client", () => {
  it("first sync: every shared page and row, structure kept, its Original the page's URL, the token only in a header", async () => {
    const log = logFrom();
    const input = sourceInputSchema.parse({ kind: "notion", apiUrl: notion.origin, token: notion.token, scheduleMinutes: 0 });
    source = await addSource(store, "default", input, { admin: false });
    const run = (await runningPromise(source.id))!;
    expect(run).toMatchObject({ added: 5, failed: [], error: null });
    expect(await titles()).toEqual(["Handbook", "Leave policy", "Okapi feeding", "Printer", "年假规定"]);
    const policy = (await textOf("Leave policy"))!;
    expect(policy).toContain("# Handbook › Leave policy");
    expect(policy).toContain("\n## Annual leave\n");
    expect(policy).toContain("| Years | Days |\n| --- | --- |\n| 0-5 | 25 |");
    expect(policy).toMatch(/- Ask your lead\n {4}- in writing\n {4}- \[x\] two weeks ahead/);
    expect(policy).toContain("- Exceptions\n    Parental leave is separate.");
    expect(policy).toContain("```bash\nleave request --days 3\n```");
    expect(policy).toContain("*Image: The leave calendar*");
    expect(policy).toContain("\\# not a heading");
    expect(await textOf("年假规定")).toContain("员工每年有十五天带薪年假。");
    expect(await textOf("Okapi feeding")).toContain("| Status | Done |");
    const links = await (await getSourceStore(store)).linksOf((await docs()).map((d) => d.id));
    expect([...links.values()].map((l) => l.url)).toContain(`https://www.notion.so/Leave-policy-${POLICY.replace(/-/g, "")}`);
    // Nested blocks were read too (the list item's and the toggle's children), and search paged through (2 a page).
    expect(log().filter((r) => r.url === "/v1/search")).toHaveLength(3);
    for (const r of log()) {
      expect(r.url).not.toContain(notion.token);
      expect(r.auth).toBe(`Bearer ${notion.token}`);
    }
    expect(JSON.stringify(await listSourceViews(store, "default"))).not.toContain(notion.token);
  });

  it("an unchanged re-sync reads the listing only, no page's blocks", async () => {
    const log = logFrom();
    expect(await sync()).toMatchObject({ added: 0, updated: 0, removed: 0, unchanged: 5, error: null });
    expect(blockReads(log())).toEqual([]);
    expect(log().every((r) => r.url === "/v1/search")).toBe(true);
  });

  it("an edit is read again, that page alone", async () => {
    notion.edit(PRINTER, { blocks: [block.p("The printer on floor 3 now takes A3 too.")] });
    const log = logFrom();
    expect(await sync()).toMatchObject({ updated: 1, unchanged: 4, error: null });
    expect(blockReads(log())).toEqual([PRINTER]);
    expect(await textOf("Printer")).toContain("takes A3 too");
  });

  it("a rename and a move: the document follows under its new title and heading path", async () => {
    notion.edit(CJK, { title: "年假规定 2026", parent: { page: ROOT } });
    expect(await sync()).toMatchObject({ updated: 1, removed: 0, error: null });
    expect(await titles()).toContain("年假规定 2026");
    expect(await titles()).not.toContain("年假规定");
    expect(await textOf("年假规定 2026")).toContain("# Handbook › 年假规定 2026");
  });

  it("a page deleted (in the trash) loses its document", async () => {
    notion.edit(PRINTER, { inTrash: true });
    expect(await sync()).toMatchObject({ removed: 1, error: null });
    expect(await titles()).not.toContain("Printer");
  });

  it("a page no longer shared with the integration loses its document; the others stay", async () => {
    notion.pages.get(ROW)!.shared = false;
    expect(await sync()).toMatchObject({ removed: 1, unchanged: 3, error: null });
    expect(await titles()).toEqual(["Handbook", "Leave policy", "年假规定 2026"]);
  });

  it("a 429 storm is waited out as Retry-After says; one that outlasts the retries fails the sync, removing nothing", async () => {
    notion.busy.push("0", "0", "0");
    expect(await sync()).toMatchObject({ unchanged: 3, error: null });
    notion.busy.push("0", "0", "0", "0");
    const stormy = await sync();
    expect(stormy.error).toBe("Notion kept answering HTTP 429 (rate limited) to search after its Retry-After waits");
    expect(await titles()).toHaveLength(3);
    notion.busy.length = 0;
  });

  it("a search that never ends with new pages every answer holds at most SOURCE_MAX_ITEMS of them, removing nothing", async () => {
    process.env.SOURCE_MAX_LIST_PAGES = "40";
    process.env.SOURCE_MAX_ITEMS = "5";
    const from = notion.requests.length;
    try {
      notion.endless = "items";
      expect((await sync()).error).toBe("Notion shares more than 5 pages with this integration (SOURCE_MAX_ITEMS): nothing was removed");
      // Stopped on the third answer of two, not at the 40th: what a sync holds of the listing is capped by items, not pages.
      expect(notion.requests.slice(from).filter((r) => r.url === "/v1/search")).toHaveLength(3);
      expect(await titles()).toHaveLength(3);
    } finally {
      notion.endless = null;
      delete process.env.SOURCE_MAX_LIST_PAGES;
      delete process.env.SOURCE_MAX_ITEMS;
    }
  });

  it("a search that never ends, or repeats its cursor, fails the sync, removing nothing", async () => {
    process.env.SOURCE_MAX_LIST_PAGES = "4";
    try {
      notion.endless = "new";
      expect((await sync()).error).toBe("Notion's search did not end after 4 pages (SOURCE_MAX_LIST_PAGES): nothing was removed");
      notion.endless = "same";
      expect((await sync()).error).toBe("Notion's search repeats a cursor after 2 pages: it would never end");
      expect(await titles()).toHaveLength(3);
    } finally {
      notion.endless = null;
      delete process.env.SOURCE_MAX_LIST_PAGES;
    }
  });

  it("a revoked token stops the sync keeping every document; entered again by PATCH, the sync goes on", async () => {
    notion.revoke();
    const refused = await sync();
    expect(refused.error).toBe(
      "Notion refused the integration token (HTTP 401 unauthorized): it was revoked, or the integration removed; enter a new token",
    );
    expect(await titles()).toHaveLength(3);
    notion.issue("ntn_new_token_9876543210");
    source = await updateSource(store, source, { token: notion.token });
    expect(await sync()).toMatchObject({ unchanged: 3, error: null });
  });

  it("an apiUrl on a private address is refused when the source is added, unless SOURCE_ALLOW_HOSTS lists it", async () => {
    delete process.env.SOURCE_ALLOW_HOSTS;
    try {
      const input = sourceInputSchema.parse({ kind: "notion", apiUrl: notion.origin, token: notion.token, scheduleMinutes: 0 });
      await expect(addSource(store, "default", input, { admin: false })).rejects.toThrow(
        "This source cannot be added: 127.0.0.1 is not a public address (an admin can allow it in SOURCE_ALLOW_HOSTS).",
      );
    } finally {
      process.env.SOURCE_ALLOW_HOSTS = ENV.SOURCE_ALLOW_HOSTS;
    }
  });
});
