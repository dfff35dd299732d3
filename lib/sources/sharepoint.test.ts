/**
 * The SharePoint / OneDrive source against a contract server of Microsoft's sign-in and Graph (e2e/helpers/
 * graph-contract.ts: client-credentials token, OpenID metadata, drive items, children, delta, downloads; every request
 * recorded; TLS, as MSAL and the Graph client take only https), through the official SDKs: the first sync, a re-sync
 * that reads the delta feed and fetches nothing unchanged, an edit, a delete, a move and a rename, a permission
 * withdrawn from one file, a deleted client secret, a storm of 429s and a listing that never ends. One server and
 * one store for the file; the tests run in order on one source (the last ones add their own).
 */
import tls from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DOCX_PHRASES, makeDocx } from "@/e2e/fixtures/make-fixtures";
import { type GraphContract, graphContractMissing, startGraphContract } from "@/e2e/helpers/graph-contract";
import { createOfflineEmbedder } from "@/lib/embed/offline";
import { openStore, type Store } from "@/lib/store";
import { tempDirs } from "@/lib/test-helpers/temp-dirs";
import { runningPromise } from "./engine";
import { sourceInputSchema, sourcePatchSchema } from "./schema";
import { addSource, listSourceViews, startSync, updateSource } from "./service";
import { getSourceStore, type SourceRecord } from "./store";

const tempDir = tempDirs("sharepoint-test-");
const ENV = { SOURCE_ALLOW_HOSTS: "127.0.0.1", SOURCE_SECRET_KEY: "test-source-secret-key-0123456789" };
const missing = graphContractMissing();
const trusted = tls.getCACertificates("default");

let g: GraphContract;
let store: Store;
let secret: string;
let source: SourceRecord;
const id: Record<string, string> = {};

beforeAll(async () => {
  if (missing) return;
  process.env.DATA_DIR = await tempDir();
  Object.assign(process.env, ENV);
  g = await startGraphContract(await tempDir());
  tls.setDefaultCACertificates([...trusted, g.cert]);
  secret = g.clientSecret;
  store = await openStore({ uri: await tempDir(), embedder: createOfflineEmbedder(64) });
  id.policies = g.folder("Policies");
  id.sub = g.folder("手册", id.policies);
  id.handbook = g.file("handbook.md", id.policies, "# Handbook\n\nThe okapi team meets on Mondays.");
  id.leave = g.file("年假规定.md", id.sub, "# 年假\n\n员工每年有十五天带薪年假。");
  id.printer = g.file("printer.txt", id.policies, "The printer on floor 3 takes A4 only.");
  id.docx = g.file("Onboarding.docx", id.policies, await makeDocx());
  id.other = g.folder("Other");
  id.archive = g.folder("Archive", id.other);
  g.file("old-plan.md", id.archive, "# Old plan\n\nThe 2019 plan.");
  g.file("outside.md", id.other, "# Outside\n\nNot in the chosen folder.");
}, 60_000);
afterAll(async () => {
  for (const k of [...Object.keys(ENV), "SOURCE_MAX_LIST_PAGES"]) delete process.env[k];
  tls.setDefaultCACertificates(trusted);
  await store?.close();
  await g?.close();
});

const add = async (folder: string, clientSecret = secret) => {
  const input = sourceInputSchema.parse({
    kind: "sharepoint",
    driveId: g.driveId,
    folder,
    tenantId: g.tenantId,
    clientId: g.clientId,
    clientSecret,
    apiUrl: g.origin,
    loginUrl: g.origin,
    scheduleMinutes: 0,
  });
  const added = await addSource(store, "default", input, { admin: false });
  return { source: added, run: (await runningPromise(added.id))! };
};
const sync = async (s: SourceRecord = source) => startSync(store, (await (await getSourceStore(store)).get(s.id))!);
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
const from = () => {
  const start = g.requests().length;
  return () => g.requests().slice(start);
};
/** The files whose bytes a stretch of requests downloaded, by id. */
const fetched = (log: { url: string }[]) => log.flatMap((r) => /^\/download\/(\w+)\?/.exec(r.url)?.[1] ?? []);
const WEB = "https://contoso.sharepoint.com/sites/Team/Shared%20Documents";

describe.skipIf(missing)(`sharepoint source against a contract server of Microsoft Graph${missing ? ` (skipped: ${missing})` : ""}`, () => {
  it("first sync: every file under the chosen folder, CJK names and bodies, a docx's structure, Original links; no secret in a URL", async () => {
    const log = from();
    const added = await add("Policies");
    source = added.source;
    expect(added.run).toMatchObject({ added: 4, error: null });
    expect(Object.keys(await docs()).sort()).toEqual(["Onboarding.docx", "handbook.md", "printer.txt", "年假规定.md"]);
    expect(await textOf("年假规定.md")).toContain("员工每年有十五天带薪年假。");
    expect(await textOf("Onboarding.docx")).toMatch(new RegExp(`^#+ ${DOCX_PHRASES.heading}$`, "m"));
    expect((await docs())["年假规定.md"]).toBe(`${WEB}/Policies/${encodeURIComponent("手册")}/${encodeURIComponent("年假规定.md")}`);
    const requests = log();
    expect(fetched(requests).sort()).toEqual([id.handbook, id.leave, id.printer, id.docx].sort());
    // The secret goes in the token request's body; the token in a header, and never to the download host's links.
    const tokenRequests = requests.filter((r) => r.url.split("?")[0].endsWith("/oauth2/v2.0/token"));
    expect(tokenRequests).toHaveLength(1);
    expect(new URLSearchParams(tokenRequests[0].body).get("client_secret")).toBe(secret);
    expect(new URLSearchParams(tokenRequests[0].body).get("grant_type")).toBe("client_credentials");
    const access = requests.find((r) => r.authorization)?.authorization?.replace("Bearer ", "") ?? "";
    expect(access.length).toBeGreaterThan(20);
    for (const r of requests) for (const s of [secret, access, "client_secret"]) expect(decodeURIComponent(r.url)).not.toContain(s);
    expect(requests.filter((r) => r.url.startsWith("/v1.0/")).every((r) => r.authorization === `Bearer ${access}`)).toBe(true);
    expect(requests.filter((r) => r.url.startsWith("/download/")).every((r) => r.authorization === undefined)).toBe(true);
    expect(JSON.stringify(await listSourceViews(store, "default"))).not.toContain(secret);
  });

  it("an unchanged re-sync reads the delta feed only and fetches no file", async () => {
    const log = from();
    expect(await sync()).toMatchObject({ added: 0, updated: 0, removed: 0, unchanged: 4, error: null });
    const requests = log();
    expect(fetched(requests)).toEqual([]);
    expect(requests.filter((r) => r.url.includes("/children"))).toEqual([]);
    expect(requests.filter((r) => r.url.includes("/root/delta?token=")).length).toBeGreaterThan(0);
  });

  it("an edit: only that file is fetched again", async () => {
    g.edit(id.handbook, "# Handbook\n\nThe okapi team meets on Tuesdays.");
    const log = from();
    expect(await sync()).toMatchObject({ added: 0, updated: 1, removed: 0, unchanged: 3, error: null });
    expect(fetched(log())).toEqual([id.handbook]);
    expect(await textOf("handbook.md")).toContain("Tuesdays");
  });

  it("a delete: the deleted file's document goes", async () => {
    g.remove(id.printer);
    const log = from();
    expect(await sync()).toMatchObject({ added: 0, updated: 0, removed: 1, unchanged: 3, error: null });
    expect(fetched(log())).toEqual([]);
    expect(Object.keys(await docs())).not.toContain("printer.txt");
  });

  it("a move and a rename: renamed re-indexed under its new name, moved within kept with its new link, moved out gone, a folder moved in walked", async () => {
    g.rename(id.docx, "Onboarding 2026.docx");
    g.move(id.leave, id.policies);
    g.move(id.handbook, id.other);
    g.move(id.archive, id.sub);
    const log = from();
    expect(await sync()).toMatchObject({ added: 1, updated: 1, removed: 1, unchanged: 1, error: null });
    expect(fetched(log()).length).toBe(2);
    expect(fetched(log())).toContain(id.docx);
    const now = await docs();
    expect(Object.keys(now).sort()).toEqual(["Onboarding 2026.docx", "old-plan.md", "年假规定.md"]);
    expect(now["年假规定.md"]).toBe(`${WEB}/Policies/${encodeURIComponent("年假规定.md")}`);
    expect(await textOf("Onboarding 2026.docx")).toContain(DOCX_PHRASES.tableCell);
  });

  it("a permission withdrawn from one file: its document goes, the others stay unfetched", async () => {
    g.unshare(id.leave);
    const log = from();
    expect(await sync()).toMatchObject({ added: 0, updated: 0, removed: 1, unchanged: 2, error: null });
    expect(fetched(log())).toEqual([]);
    expect(Object.keys(await docs())).not.toContain("年假规定.md");
  });

  it("an expired delta link (410 resyncRequired) means a full listing again, fetching nothing unchanged", async () => {
    g.expireDeltaLinks();
    const log = from();
    expect(await sync()).toMatchObject({ added: 0, updated: 0, removed: 0, unchanged: 2, error: null });
    const requests = log();
    expect(requests.filter((r) => r.url.includes("/root/delta?token=") && r.status === 410)).toHaveLength(1);
    expect(requests.filter((r) => r.url.includes("/children")).length).toBeGreaterThan(0);
    expect(fetched(requests)).toEqual([]);
    // The new delta link works.
    const next = from();
    expect(await sync()).toMatchObject({ unchanged: 2, error: null });
    expect(next().filter((r) => r.status === 410 || r.url.includes("/children"))).toEqual([]);
  });

  it("a deleted client secret stops the sync with a clear error, keeping every document; a new secret entered works", async () => {
    const fresh = g.rotateSecret();
    const refused = await sync();
    expect(refused.error).toMatch(
      /^Microsoft Entra ID refused the app registration's credential \(invalid_client: AADSTS7000215: Invalid client secret provided\..*\): the client secret was deleted, expired or changed, or the app removed; enter it again$/,
    );
    expect(refused.error).not.toContain(secret);
    expect(Object.keys(await docs())).toHaveLength(2);
    secret = fresh;
    source = await updateSource(store, source, sourcePatchSchema.parse({ clientSecret: secret }));
    expect(await sync()).toMatchObject({ unchanged: 2, error: null });
  });

  it("a storm of 429s is waited out as Retry-After says; one past the retries fails the sync, removing nothing", async () => {
    g.busy.push({ status: 429, retryAfter: "1" }, { status: 429, retryAfter: "0" });
    const log = from();
    expect(await sync()).toMatchObject({ unchanged: 2, error: null });
    const api = log().filter((r) => r.url.startsWith("/v1.0/"));
    expect(api.slice(0, 3).map((r) => r.status)).toEqual([429, 429, 200]);
    expect(api[1].at - api[0].at).toBeGreaterThanOrEqual(1000);
    g.busy.push(...Array.from({ length: 4 }, () => ({ status: 429, retryAfter: "0" })));
    const storm = await sync();
    expect(storm.error).toMatch(/^Microsoft Graph answered HTTP 429 to .*: The request has been throttled$/);
    expect(Object.keys(await docs())).toHaveLength(2);
    expect(g.busy).toEqual([]);
  });

  it("a listing or delta feed that never ends fails the sync at SOURCE_MAX_LIST_PAGES, removing nothing", async () => {
    process.env.SOURCE_MAX_LIST_PAGES = "5";
    g.endless = true;
    try {
      const feed = await sync();
      expect(feed.error).toBe("the SharePoint change feed did not end after 5 pages (SOURCE_MAX_LIST_PAGES): nothing was removed");
      expect(Object.keys(await docs())).toHaveLength(2);
      const log = from();
      const fresh = await add("Other");
      expect(fresh.run.error).toBe("the SharePoint folder listing did not end after 5 pages (SOURCE_MAX_LIST_PAGES): nothing was removed");
      expect(log().filter((r) => r.url.includes("/children"))).toHaveLength(5);
    } finally {
      g.endless = false;
      delete process.env.SOURCE_MAX_LIST_PAGES;
    }
  });
});
