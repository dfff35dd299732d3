/**
 * The Google Drive source against a contract server of Google's APIs (e2e/helpers/google-drive-contract.ts: token
 * exchange, files, export, changes; every request recorded), through the official SDK: the first sync, a re-sync
 * that reads the change feed and fetches nothing unchanged, an edit, a delete, a move and a rename, a permission
 * withdrawn from one file, a deleted key, a storm of 429s and a listing that never ends. One server and one store
 * for the file; the tests run in order on one source (the last ones add their own).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DOCX_PHRASES, makeDocx } from "@/e2e/fixtures/make-fixtures";
import { INVENTORY, LEAD_TIMES, makeInventoryXlsx, makeLeadTimesPptx } from "@/e2e/fixtures/make-structured";
import { type GoogleDriveContract, startGoogleDriveContract } from "@/e2e/helpers/google-drive-contract";
import { createOfflineEmbedder } from "@/lib/embed/offline";
import { openStore, type Store } from "@/lib/store";
import { tempDirs } from "@/lib/test-helpers/temp-dirs";
import { runningPromise } from "./engine";
import { sourceInputSchema, sourcePatchSchema } from "./schema";
import { addSource, listSourceViews, startSync, updateSource } from "./service";
import { getSourceStore, type SourceRecord } from "./store";

const tempDir = tempDirs("google-drive-test-");
const ENV = { SOURCE_ALLOW_HOSTS: "127.0.0.1", SOURCE_SECRET_KEY: "test-source-secret-key-0123456789" };
const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
const XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
const PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation";

let g: GoogleDriveContract;
let store: Store;
let key: string;
let source: SourceRecord;
const id: Record<string, string> = {};

beforeAll(async () => {
  process.env.DATA_DIR = await tempDir();
  Object.assign(process.env, ENV);
  g = await startGoogleDriveContract();
  key = g.serviceAccount();
  store = await openStore({ uri: await tempDir(), embedder: createOfflineEmbedder(64) });
  id.root = g.folder("Team");
  id.sub = g.folder("手册", id.root);
  id.handbook = g.file("handbook.md", id.root, "# Handbook\n\nThe okapi team meets on Mondays.", { mimeType: "text/markdown" });
  id.leave = g.file("年假规定.md", id.sub, "# 年假\n\n员工每年有十五天带薪年假。", { mimeType: "text/markdown" });
  id.printer = g.file("printer.txt", id.root, "The printer on floor 3 takes A4 only.", { mimeType: "text/plain" });
  id.doc = g.file("Onboarding", id.root, await makeDocx(), { mimeType: "application/vnd.google-apps.document", exportMime: DOCX });
  id.sheet = g.file("Stock", id.root, await makeInventoryXlsx(), { mimeType: "application/vnd.google-apps.spreadsheet", exportMime: XLSX });
  id.deck = g.file("Logistics", id.sub, await makeLeadTimesPptx(), {
    mimeType: "application/vnd.google-apps.presentation",
    exportMime: PPTX,
  });
  id.form = g.file("Survey", id.root, "", { mimeType: "application/vnd.google-apps.form" });
  id.elsewhere = g.folder("Elsewhere");
  id.archive = g.folder("Archive", id.elsewhere);
  g.file("old-plan.md", id.archive, "# Old plan\n\nThe 2019 plan.", { mimeType: "text/markdown" });
  g.file("outside.md", id.elsewhere, "# Outside\n\nNot in the chosen folder.", { mimeType: "text/markdown" });
}, 60_000);
afterAll(async () => {
  for (const k of [...Object.keys(ENV), "SOURCE_MAX_LIST_PAGES", "SOURCE_MAX_BYTES"]) delete process.env[k];
  await store?.close();
  await g?.close();
});

const add = async (folders: string[], serviceAccount = key) => {
  const input = sourceInputSchema.parse({ kind: "google-drive", folders, serviceAccount, apiUrl: g.apiUrl, scheduleMinutes: 0 });
  const added = await addSource(store, "default", input, { admin: false });
  return { source: added, run: (await runningPromise(added.id))! };
};
const sync = async (s: SourceRecord = source) => startSync(store, (await (await getSourceStore(store)).get(s.id))!);
/** A document's file name as the source named it ("handbook.md"; a Google Doc "Onboarding.docx"). */
const fileName = (stored: string) => stored.replace(/ \([0-9a-f]{6}\)(\.[^.]+)$/, "$1");
/** The documents of a source: file name → Original link. */
async function docs(s: SourceRecord = source): Promise<Record<string, string>> {
  const all = await store.listDocuments({ kb: "default" });
  const links = await (await getSourceStore(store)).linksOf(all.map((d) => d.id));
  return Object.fromEntries(all.flatMap((d) => (links.get(d.id)?.sourceId === s.id ? [[fileName(d.source), links.get(d.id)!.url]] : [])));
}
const textOf = async (name: string) => {
  const doc = (await store.listDocuments({ kb: "default" })).find((d) => fileName(d.source) === name);
  return doc ? store.getDocumentText(doc.id) : null;
};
/** The requests the server answered from now on. */
const from = () => {
  const start = g.requests().length;
  return () => g.requests().slice(start);
};
/** The files whose content a stretch of requests fetched (downloads and exports), by id. */
const fetched = (log: { url: string }[]) =>
  log.flatMap((r) => {
    const m = /^\/drive\/v3\/files\/([\w-]+)(\/export\?|\?(?:.*&)?alt=media)/.exec(r.url);
    return m ? [m[1]] : [];
  });

describe("google-drive source against a contract server of the Drive API", () => {
  it("first sync: every file under the chosen folder, Google Docs exported, CJK names and bodies, Original links; the key never in a URL", async () => {
    const big = g.file("big.txt", id.root, "x".repeat(300_000), { mimeType: "text/plain" });
    process.env.SOURCE_MAX_BYTES = "200000";
    const log = from();
    const added = await add([`https://drive.google.com/drive/folders/${id.root}`]);
    delete process.env.SOURCE_MAX_BYTES;
    source = added.source;
    expect(added.run).toMatchObject({ added: 6, skipped: 1, error: null });
    // Over SOURCE_MAX_BYTES by the listing's size: failed alone, never downloaded.
    expect(added.run.failed).toEqual([
      { item: `file:${big}`, reason: "big.txt: 300000 bytes, larger than the limit of 200000 bytes (SOURCE_MAX_BYTES)" },
    ]);
    expect(Object.keys(await docs()).sort()).toEqual([
      "Logistics.pptx",
      "Onboarding.docx",
      "Stock.xlsx",
      "handbook.md",
      "printer.txt",
      "年假规定.md",
    ]);
    expect(await textOf("年假规定.md")).toContain("员工每年有十五天带薪年假。");
    expect((await docs())["handbook.md"]).toBe(`https://drive.google.com/file/d/${id.handbook}/view?usp=drivesdk`);
    expect((await docs())["Onboarding.docx"]).toBe(`https://docs.google.com/document/d/${id.doc}/edit`);
    const requests = log();
    expect(fetched(requests).sort()).toEqual([id.handbook, id.leave, id.printer, id.doc, id.sheet, id.deck].sort());
    // The key signs a JWT posted in a body; the token it buys goes in a header: neither is ever in a URL.
    const tokenRequests = requests.filter((r) => r.url === "/token");
    expect(tokenRequests).toHaveLength(1);
    expect(tokenRequests[0].body).toMatch(/grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=/);
    const access = requests.find((r) => r.authorization)?.authorization?.replace("Bearer ", "") ?? "";
    expect(access).toMatch(/^ya29\./);
    const secrets = [access, JSON.parse(key).private_key.split("\n")[1], "assertion", "ya29."];
    for (const r of requests) for (const s of secrets) expect(decodeURIComponent(r.url)).not.toContain(s);
    expect(requests.filter((r) => r.url !== "/token").every((r) => r.authorization === `Bearer ${access}`)).toBe(true);
    expect(JSON.stringify(await listSourceViews(store, "default"))).not.toContain(JSON.parse(key).private_key.split("\n")[1]);

    // The file over the limit, not downloaded, is tried again by the next sync though it did not change; trashed, it goes.
    expect(fetched(requests)).not.toContain(big);
    const retry = from();
    expect(await sync()).toMatchObject({ added: 1, unchanged: 6, failed: [], error: null });
    expect(fetched(retry())).toEqual([big]);
    g.trash(big);
    expect(await sync()).toMatchObject({ removed: 1, unchanged: 6, error: null });
  });

  it("Google Docs, Sheets and Slides keep their structure: a heading, a sheet's header, a slide's title", async () => {
    expect(await textOf("Onboarding.docx")).toMatch(new RegExp(`^#+ ${DOCX_PHRASES.heading}$`, "m"));
    expect(await textOf("Onboarding.docx")).toContain(DOCX_PHRASES.tableCell);
    expect(await textOf("Stock.xlsx")).toMatch(new RegExp(`^# Sheet: ${INVENTORY.sheet}$`, "m"));
    expect(await textOf("Stock.xlsx")).toContain(`${INVENTORY.header[3]}: ${INVENTORY.shown["Unit cost"]}`);
    expect(await textOf("Logistics.pptx")).toMatch(new RegExp(`^# Slide 2 — ${LEAD_TIMES.title}$`, "m"));
  });

  it("an unchanged re-sync reads the change feed only and fetches no file", async () => {
    const log = from();
    expect(await sync()).toMatchObject({ added: 0, updated: 0, removed: 0, unchanged: 6, error: null });
    const requests = log();
    expect(fetched(requests)).toEqual([]);
    // The chosen folder is looked up (a folder gone fails the sync rather than emptying it); nothing is listed.
    expect(requests.filter((r) => r.url.startsWith("/drive/v3/files")).map((r) => r.url.split("?")[0])).toEqual([
      `/drive/v3/files/${id.root}`,
    ]);
    expect(requests.filter((r) => r.url.startsWith("/drive/v3/changes?")).length).toBeGreaterThan(0);
  });

  it("an edit: only that file is fetched again", async () => {
    g.edit(id.handbook, "# Handbook\n\nThe okapi team meets on Tuesdays.");
    const log = from();
    expect(await sync()).toMatchObject({ added: 0, updated: 1, removed: 0, unchanged: 5, error: null });
    expect(fetched(log())).toEqual([id.handbook]);
    expect(await textOf("handbook.md")).toContain("Tuesdays");
  });

  it("a delete: the trashed file's document goes", async () => {
    g.trash(id.printer);
    const log = from();
    expect(await sync()).toMatchObject({ added: 0, updated: 0, removed: 1, unchanged: 5, error: null });
    expect(fetched(log())).toEqual([]);
    expect(Object.keys(await docs())).not.toContain("printer.txt");
  });

  it("a move and a rename: renamed re-indexed under its new name, moved within kept, moved out gone, a folder moved in walked", async () => {
    g.rename(id.doc, "Onboarding 2026");
    g.move(id.leave, id.root);
    g.move(id.handbook, id.elsewhere);
    g.move(id.archive, id.sub);
    const log = from();
    expect(await sync()).toMatchObject({ added: 1, updated: 1, removed: 1, unchanged: 3, error: null });
    expect(fetched(log()).length).toBe(2);
    expect(fetched(log())).toContain(id.doc);
    const now = await docs();
    expect(Object.keys(now).sort()).toEqual(["Logistics.pptx", "Onboarding 2026.docx", "Stock.xlsx", "old-plan.md", "年假规定.md"]);
    expect(now["Onboarding 2026.docx"]).toBe(`https://docs.google.com/document/d/${id.doc}/edit`);
    expect(await textOf("Onboarding 2026.docx")).toContain(DOCX_PHRASES.tableCell);
  });

  it("a permission withdrawn from one file: its document goes, the others stay unfetched", async () => {
    g.unshare(id.sheet);
    const log = from();
    expect(await sync()).toMatchObject({ added: 0, updated: 0, removed: 1, unchanged: 4, error: null });
    expect(fetched(log())).toEqual([]);
    expect(Object.keys(await docs())).not.toContain("Stock.xlsx");
    // A chosen folder the service account cannot see fails the sync: it is not taken for an empty folder.
    const hidden = g.folder("Hidden");
    g.unshare(hidden);
    expect((await add([hidden])).run.error).toBe(`the folder ${hidden} is not there or not shared with the service account`);
  });

  it("a deleted key stops the sync with a clear error, keeping every document; a new key entered works", async () => {
    g.deleteKey(key);
    const refused = await sync();
    expect(refused.error).toBe(
      "Google refused the service account's key (invalid_grant: Invalid JWT Signature.): the key was deleted or disabled, or the delegation withdrawn; enter a new key",
    );
    expect(Object.keys(await docs())).toHaveLength(4);
    key = g.serviceAccount();
    source = await updateSource(store, source, sourcePatchSchema.parse({ serviceAccount: key }));
    expect(await sync()).toMatchObject({ unchanged: 4, error: null });
  });

  it("a storm of 429s is waited out as Retry-After says; one past the retries fails the sync, removing nothing", async () => {
    g.busy.push({ status: 429, retryAfter: "1" }, { status: 429, retryAfter: "0" });
    const log = from();
    expect(await sync()).toMatchObject({ unchanged: 4, error: null });
    const api = log().filter((r) => r.url !== "/token");
    expect(api.slice(0, 3).map((r) => r.status)).toEqual([429, 429, 200]);
    expect(api[1].at - api[0].at).toBeGreaterThanOrEqual(1000);
    g.busy.push(...Array.from({ length: 4 }, () => ({ status: 429, retryAfter: "0" })));
    const storm = await sync();
    expect(storm.error).toMatch(/^Google Drive answered HTTP 429 to .*: Rate Limit Exceeded$/);
    expect(Object.keys(await docs())).toHaveLength(4);
    expect(g.busy).toEqual([]);
  });

  it("a listing or change feed that never ends fails the sync at SOURCE_MAX_LIST_PAGES, removing nothing", async () => {
    process.env.SOURCE_MAX_LIST_PAGES = "5";
    g.endless = true;
    try {
      const feed = await sync();
      expect(feed.error).toBe("the Google Drive change feed did not end after 5 pages (SOURCE_MAX_LIST_PAGES): nothing was removed");
      expect(Object.keys(await docs())).toHaveLength(4);
      const log = from();
      const fresh = await add([id.elsewhere]);
      expect(fresh.run.error).toBe(
        "the Google Drive folder listing did not end after 5 pages (SOURCE_MAX_LIST_PAGES): nothing was removed",
      );
      expect(log().filter((r) => r.url.startsWith("/drive/v3/files?"))).toHaveLength(5);
    } finally {
      g.endless = false;
      delete process.env.SOURCE_MAX_LIST_PAGES;
    }
  });

  it("a change feed that never ends with new items holds at most SOURCE_MAX_ITEMS of them, removing nothing", async () => {
    process.env.SOURCE_MAX_LIST_PAGES = "40";
    process.env.SOURCE_MAX_ITEMS = "5";
    g.endless = "items";
    try {
      const log = from();
      const feed = await sync();
      expect(feed.error).toBe("the Google Drive change feed names more than 5 items (SOURCE_MAX_ITEMS): nothing was removed");
      // Stopped on the third page of two, not at the 40th: what a sync holds of the feed is capped by items, not pages.
      expect(log().filter((r) => r.url.startsWith("/drive/v3/changes?"))).toHaveLength(3);
      expect(Object.keys(await docs())).toHaveLength(4);
    } finally {
      g.endless = false;
      delete process.env.SOURCE_MAX_LIST_PAGES;
      delete process.env.SOURCE_MAX_ITEMS;
    }
  });
});
