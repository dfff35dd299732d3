/**
 * The Feishu / Lark source through the official SDK against the contract server (e2e/helpers/feishu-contract.ts,
 * written from the open platform's API reference; the live service cannot be reached from here): one server and
 * one store for the file, each `it` one step of a source's life, read from the server's request log: first sync,
 * an unchanged re-sync (no block fetched twice), an edit, a delete, a move and a rename, a permission lost on one
 * document, a 429 storm, a listing that never ends, a reset app secret.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FeishuContract, type Part, startFeishuContract } from "@/e2e/helpers/feishu-contract";
import { getAuditLog } from "@/lib/audit/log";
import { createOfflineEmbedder } from "@/lib/embed/offline";
import { ingestDocument } from "@/lib/ingest";
import { openStore, type Store } from "@/lib/store";
import { tempDirs } from "@/lib/test-helpers/temp-dirs";
import { runningPromise } from "./engine";
import { sourceInputSchema } from "./schema";
import { addSource, listSourceViews, removeSource, startSync, updateSource } from "./service";
import { getSourceStore, type SourceRecord } from "./store";

const tempDir = tempDirs("feishu-test-");
const ENV = { SOURCE_ALLOW_HOSTS: "127.0.0.1", SOURCE_SECRET_KEY: "test-source-secret-key-0123456789" };

const HANDBOOK: Part[] = [
  { h: 1, text: "年假" },
  { p: "员工每年有十五天带薪年假，入职满一年后生效。" },
  {
    table: [
      ["地区", "年假天数"],
      ["北京", "15"],
      ["上海", "12"],
    ],
  },
  { h: 2, text: "申请流程" },
  { bullets: ["在系统中提交申请", ["提前两周提交", "经理审批"], "人事备案"] },
  { code: "leave apply --days 15" },
  { image: "请假流程图" },
  { h: 1, text: "病假" },
  { p: "病假第三天起需提供医院证明。" },
];

let feishu: FeishuContract;
let store: Store;
let source: SourceRecord;
beforeAll(async () => {
  process.env.DATA_DIR = await tempDir();
  Object.assign(process.env, ENV);
  feishu = await startFeishuContract({ pageSize: 2 });
  const handbook = feishu.wikiDoc("spc1", "dxHandbook", "员工手册", HANDBOOK);
  feishu.wikiDoc("spc1", "dxExpense", "报销制度", [{ p: "出差报销需在三十天内提交发票。" }], handbook);
  feishu.wikiSheet("spc1", "wikBudget", "预算表");
  feishu.wikiDoc("spc1", "dxOncall", "On-call rota", [{ p: "The on-call engineer answers a page within 15 minutes." }]);
  feishu.driveDoc("fldA", "dxTravel", "差旅指南", [{ p: "高铁二等座可直接报销。" }]);
  feishu.driveFolder("fldA", "fldB", "安全");
  feishu.driveDoc("fldB", "dxSecurity", "安全须知", [{ p: "离开工位请锁屏。" }]);
  store = await openStore({ uri: await tempDir(), embedder: createOfflineEmbedder(64) });
});
afterAll(async () => {
  for (const k of [...Object.keys(ENV), "SOURCE_MAX_LIST_PAGES"]) delete process.env[k];
  if (store) await (await getAuditLog(store)).flush();
  await store?.close();
  await feishu?.close();
});

const add = async (extra: object = {}) => {
  const input = sourceInputSchema.parse({
    kind: "feishu",
    apiUrl: feishu.origin,
    appId: feishu.appId,
    password: feishu.appSecret,
    spaces: ["spc1"],
    folders: ["fldA"],
    scheduleMinutes: 0,
    ...extra,
  });
  const added = await addSource(store, "default", input, { admin: false });
  return { source: added, run: (await runningPromise(added.id))! };
};
const sync = async (s: SourceRecord) => startSync(store, (await (await getSourceStore(store)).get(s.id))!);
const docs = async () => store.listDocuments({ kb: "default" });
const titles = async () => (await docs()).map((d) => d.title).sort();
const docOf = async (title: string) => (await docs()).find((d) => d.title === title)!;
const mark = () => feishu.requests.length;
/** The documents whose blocks were fetched since `from`. */
const blockFetches = (from: number) =>
  feishu.requests
    .slice(from)
    .flatMap((r) => /\/docx\/v1\/documents\/(\w+)\/blocks/.exec(r.url)?.[1] ?? [])
    .filter((d, i, all) => all.indexOf(d) === i)
    .sort();

describe("feishu source against the contract server", () => {
  it("indexes the docx documents of wiki spaces (nested nodes) and drive folders (sub-folders), each linking to Feishu", async () => {
    const from = mark();
    const added = await add();
    source = added.source;
    expect(added.run).toMatchObject({ added: 5, skipped: 1, removed: 0, error: null });
    expect(await titles()).toEqual(["On-call rota", "员工手册", "安全须知", "差旅指南", "报销制度"]);
    expect(blockFetches(from)).toEqual(["dxExpense", "dxHandbook", "dxOncall", "dxSecurity", "dxTravel"]);
    // The handbook's blocks came in pages (the server gives at most 2 a page).
    expect(feishu.requests.slice(from).filter((r) => r.url.includes("dxHandbook/blocks")).length).toBeGreaterThan(5);
    const links = await (await getSourceStore(store)).linksOf((await docs()).map((d) => d.id));
    const urlOf = async (title: string) => links.get((await docOf(title)).id)?.url;
    expect(await urlOf("员工手册")).toBe(`${feishu.tenant}/wiki/wikdxHandbook`);
    expect(await urlOf("安全须知")).toBe(`${feishu.tenant}/docx/dxSecurity`);
    // The secret goes only in the token request's body; the token only in the Authorization header.
    const tokenCalls = feishu.requests.slice(from).filter((r) => r.url.endsWith("/tenant_access_token/internal"));
    expect(tokenCalls).toHaveLength(1);
    expect(tokenCalls[0].body).toContain(feishu.appSecret);
    const api = feishu.requests.slice(from).filter((r) => !r.url.endsWith("/tenant_access_token/internal"));
    expect(api.every((r) => /^Bearer t-\w+$/.test(r.authorization ?? ""))).toBe(true);
    const token = api[0].authorization!.slice("Bearer ".length);
    expect(feishu.requests.some((r) => r.url.includes(feishu.appSecret) || r.url.includes(token) || r.url.includes(feishu.appId))).toBe(
      false,
    );
    expect(JSON.stringify(await listSourceViews(store, "default"))).not.toContain(feishu.appSecret);
  });

  it("keeps a document's structure as an uploaded Markdown file does: headings, the table, nested lists, code, image alt text", async () => {
    const doc = await docOf("员工手册");
    const text = (await store.getDocumentText(doc.id))!;
    expect(text).toContain("| 地区 | 年假天数 |\n| --- | --- |\n| 北京 | 15 |\n| 上海 | 12 |");
    expect(text).toMatch(/- 在系统中提交申请\n {3}- 提前两周提交\n {3}- 经理审批\n- 人事备案/);
    expect(text).toContain("```\nleave apply --days 15\n```");
    expect(text).toContain("请假流程图");
    const uploaded = await ingestDocument(store, {
      filename: "手册.md",
      defaultTitle: "手册",
      kb: "uploads",
      data: Buffer.from(
        "# 员工手册\n\n## 年假\n\n员工每年有十五天带薪年假，入职满一年后生效。\n\n| 地区 | 年假天数 |\n|---|---|\n| 北京 | 15 |\n| 上海 | 12 |\n\n### 申请流程\n\n- 在系统中提交申请\n  - 提前两周提交\n  - 经理审批\n- 人事备案\n\n```\nleave apply --days 15\n```\n\n## 病假\n\n病假第三天起需提供医院证明。\n",
      ),
    });
    const paths = async (id: string) => [...new Set((await store.getChunks(id)).map((c) => c.heading))].sort();
    expect(await paths(doc.id)).toEqual(await paths(uploaded.document.id));
    expect(await paths(doc.id)).toContain("员工手册 › 年假 › 申请流程");
  });

  it("re-syncs unchanged: asks each document for its revision id, fetches no block again", async () => {
    const from = mark();
    expect(await sync(source)).toMatchObject({ added: 0, updated: 0, removed: 0, unchanged: 5, error: null });
    expect(blockFetches(from)).toEqual([]);
    const asked = feishu.requests.slice(from).filter((r) => /\/docx\/v1\/documents\/\w+$/.test(r.url.split("?")[0]));
    expect(asked).toHaveLength(5);
  });

  it("follows an edit: only the edited document's blocks are fetched", async () => {
    feishu.edit("dxOncall", [{ p: "The on-call engineer answers a page within 5 minutes, day and night." }]);
    const from = mark();
    expect(await sync(source)).toMatchObject({ added: 0, updated: 1, removed: 0, unchanged: 4, error: null });
    expect(blockFetches(from)).toEqual(["dxOncall"]);
    expect(await store.getDocumentText((await docOf("On-call rota")).id)).toContain("within 5 minutes, day and night");
  });

  it("follows a delete: its document goes, the rest stay (a token that stops working mid-sync is fetched anew)", async () => {
    feishu.remove("dxTravel");
    feishu.tokenLifetime(4);
    const from = mark();
    try {
      expect(await sync(source)).toMatchObject({ added: 0, updated: 0, removed: 1, unchanged: 4, error: null });
    } finally {
      feishu.tokenLifetime(null);
    }
    expect(blockFetches(from)).toEqual([]);
    // 12 API requests, each token good for 4 of them: answered 99991663 after, and asked for again.
    expect(feishu.requests.slice(from).filter((r) => r.url.endsWith("/tenant_access_token/internal")).length).toBeGreaterThanOrEqual(3);
    expect(await titles()).not.toContain("差旅指南");
  });

  it("follows a move (kept, nothing fetched) and a rename (its new title indexed)", async () => {
    feishu.move("wikdxExpense", "");
    feishu.rename("dxSecurity", "安全须知 2026");
    const from = mark();
    expect(await sync(source)).toMatchObject({ added: 0, updated: 1, removed: 0, unchanged: 3, error: null });
    expect(blockFetches(from)).toEqual(["dxSecurity"]);
    expect(await titles()).toEqual(["On-call rota", "员工手册", "安全须知 2026", "报销制度"]);
  });

  it("a document the app may no longer read loses its document, noted with the API's code; the rest stay", async () => {
    feishu.forbid("dxExpense");
    const run = await sync(source);
    expect(run).toMatchObject({ added: 0, updated: 0, removed: 1, unchanged: 3, error: null });
    expect(run.note).toContain("1 not readable: 报销制度 (no longer readable by this app (code 1770032))");
    expect(await titles()).toEqual(["On-call rota", "员工手册", "安全须知 2026"]);
  });

  it("waits out a 429 storm (and a 400 rate limit) as x-ogw-ratelimit-reset says; a wait past a minute fails the sync, removing nothing", async () => {
    const apiCalls = (from: number) => feishu.requests.slice(from).filter((r) => !r.url.includes("tenant_access_token"));
    for (const status of [429, 400]) {
      feishu.throttle(3, { "x-ogw-ratelimit-limit": "5", "x-ogw-ratelimit-reset": "0" }, status);
      const from = mark();
      expect(await sync(source)).toMatchObject({ unchanged: 3, removed: 0, error: null });
      // The first listing asked four times: three answered "too many", the fourth listed.
      expect(
        apiCalls(from)
          .slice(0, 4)
          .map((r) => r.url),
      ).toEqual(Array(4).fill(apiCalls(from)[0].url));
      expect(apiCalls(from)[4].url).not.toBe(apiCalls(from)[0].url);
    }
    for (const status of [429, 400]) {
      feishu.throttle(1, { "x-ogw-ratelimit-reset": "120" }, status);
      const from = mark();
      const busy = await sync(source);
      expect(busy.error).toMatch(
        new RegExp(`^Feishu/Lark answered HTTP ${status} code 99991400 to wiki space spc1 \\(still rate-limited after the retries\\)`),
      );
      expect(apiCalls(from)).toHaveLength(1);
    }
    expect(await titles()).toHaveLength(3);
  });

  it("a listing that never ends fails the sync, removing nothing", async () => {
    feishu.endless("spcLoop");
    process.env.SOURCE_MAX_LIST_PAGES = "4";
    try {
      const { source: loop, run } = await add({ spaces: ["spcLoop"], folders: [] });
      expect(run.error).toBe("the Feishu/Lark listing of wiki space spcLoop did not end after 4 pages (SOURCE_MAX_LIST_PAGES)");
      await removeSource(store, loop);
    } finally {
      delete process.env.SOURCE_MAX_LIST_PAGES;
    }
    expect(await titles()).toHaveLength(3);
  });

  it("a document whose blocks never end fails alone once they pass SOURCE_MAX_BYTES, without reading the rest", async () => {
    const long = Array.from({ length: 40 }, (_, i) => ({ p: `Paragraph ${i} of the endless manual. ${"Lorem ipsum dolor. ".repeat(20)}` }));
    feishu.wikiDoc("spcLong", "dxEndless", "Endless manual", long);
    process.env.SOURCE_MAX_BYTES = "2000";
    const from = mark();
    try {
      const { source: one, run } = await add({ spaces: ["spcLong"], folders: [] });
      expect(run.error).toBeNull();
      expect(run.failed).toEqual([
        { item: "docx:dxEndless", reason: "its blocks are larger than 4 × the limit of 2000 bytes (SOURCE_MAX_BYTES)" },
      ]);
      // Two blocks a page, each over 400 bytes: stopped within the first ten of its 21 pages.
      expect(feishu.requests.slice(from).filter((r) => r.url.includes("dxEndless/blocks")).length).toBeLessThanOrEqual(10);
      await removeSource(store, one);
    } finally {
      delete process.env.SOURCE_MAX_BYTES;
    }
  });

  it("a tree of nodes that never ends stops at SOURCE_MAX_LIST_PAGES listings in all, not per folder, holding at most SOURCE_MAX_ITEMS nodes", async () => {
    feishu.endlessTree("spcTree");
    process.env.SOURCE_MAX_LIST_PAGES = "6";
    // Without a budget across listings the walk would go on until the sync's time budget.
    process.env.SOURCE_SYNC_TIMEOUT_S = "20";
    const from = mark();
    try {
      const { source: tree, run } = await add({ spaces: ["spcTree"], folders: [] });
      expect(run.error).toMatch(/^the Feishu\/Lark listing of wiki space spcTree did not end after 6 pages \(SOURCE_MAX_LIST_PAGES\)/);
      expect(feishu.requests.slice(from).filter((r) => r.url.includes("/spaces/spcTree/nodes"))).toHaveLength(6);
      // The nodes it holds to walk are capped by SOURCE_MAX_ITEMS, before the listings' budget: two new nodes a listing.
      process.env.SOURCE_MAX_LIST_PAGES = "40";
      process.env.SOURCE_MAX_ITEMS = "5";
      const held = mark();
      expect((await sync(tree)).error).toBe(
        "the Feishu/Lark wiki space spcTree holds more than 5 nodes (SOURCE_MAX_ITEMS): nothing was removed",
      );
      expect(feishu.requests.slice(held).filter((r) => r.url.includes("/spaces/spcTree/nodes"))).toHaveLength(3);
      await removeSource(store, tree);
    } finally {
      delete process.env.SOURCE_MAX_LIST_PAGES;
      delete process.env.SOURCE_SYNC_TIMEOUT_S;
      delete process.env.SOURCE_MAX_ITEMS;
    }
    expect(await titles()).toHaveLength(3);
  });

  it("a reset app secret stops the sync with an error that says so, keeping every document, until entered again", async () => {
    const old = feishu.appSecret;
    feishu.resetSecret();
    const refused = await sync(source);
    expect(refused.error).toMatch(/^Feishu\/Lark refused the app's credential \(code 10014: app secret invalid\): .*enter it again$/);
    expect(refused.error).not.toContain(old);
    expect(await titles()).toEqual(["On-call rota", "员工手册", "安全须知 2026"]);
    // Entered again (PATCH {"password": …}), the next sync reads as before.
    source = await updateSource(store, source, { password: feishu.appSecret });
    expect(await sync(source)).toMatchObject({ unchanged: 3, removed: 0, error: null });
  });
});
