import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { AwsClient } from "aws4fetch";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { serveGitRepo } from "@/e2e/helpers/git-server";
import { startS3 } from "@/e2e/helpers/s3";
import { serveTestSite, type TestSite } from "@/e2e/helpers/test-site";
import { createOfflineEmbedder } from "@/lib/embed/offline";
import { runningPromise } from "@/lib/sources/engine";
import { runSourceScheduler, schedulerEnabled } from "@/lib/sources/scheduler";
import { sourceInputSchema, sourcePatchSchema } from "@/lib/sources/schema";
import { openSecrets, sealSecrets } from "@/lib/sources/secrets";
import { addSource, listSourceViews, removeSource, startSync, updateSource } from "@/lib/sources/service";
import { getSourceStore, type SourceRecord } from "@/lib/sources/store";
import { openStore, type Store } from "@/lib/store";
import { tempDirs } from "@/lib/test-helpers/temp-dirs";

const tempDir = tempDirs("sources-test-");
const KEY = "test-source-secret-key-0123456789";

let store: Store;
beforeAll(async () => {
  process.env.DATA_DIR = await tempDir();
  process.env.SOURCE_ALLOW_HOSTS = "127.0.0.1";
  process.env.SOURCE_WEB_DELAY_MS = "0";
  process.env.SOURCE_SECRET_KEY = KEY;
});
beforeEach(async () => {
  store = await openStore({ uri: await tempDir(), embedder: createOfflineEmbedder(64) });
  return () => store.close();
});

const add = async (input: unknown, admin = false) => {
  const source = await addSource(store, "default", sourceInputSchema.parse(input), { admin });
  const run = await runningPromise(source.id);
  return { source, run: run! };
};
const sync = async (source: SourceRecord) => (await startSync(store, source)) as Awaited<ReturnType<typeof runningPromise>> & {};
const titles = async () => (await store.listDocuments({ kb: "default" })).map((d) => d.title).sort();
const text = async (title: string) => {
  const doc = (await store.listDocuments({ kb: "default" })).find((d) => d.title === title);
  return doc ? store.getDocumentText(doc.id) : null;
};

describe("web source", () => {
  let site: TestSite;
  beforeEach(async () => {
    site = await serveTestSite();
    return () => site.close();
  });

  it("crawls within the prefix, obeys robots.txt, follows a redirect, ingests a linked PDF; a re-sync updates, removes and skips", async () => {
    const { source, run } = await add({ kind: "web", url: `${site.base}/docs/`, mode: "site" });
    expect(run.error).toBeNull();
    expect(await titles()).toEqual(["Alpha guide", "Beta guide", "Handbook", "Moved guide", "manual"]);
    expect(run).toMatchObject({ added: 5, updated: 0, removed: 0 });
    expect(site.hits.get("/docs/private/secret.html")).toBeUndefined();
    expect(site.hits.get("/blog/outside.html")).toBeUndefined();
    expect(site.hits.get("/docs/missing.html")).toBe(1);
    expect(await text("manual")).toContain("rhinoceros");
    // Documents carry where they came from.
    const docs = await store.listDocuments({ kb: "default" });
    const links = await (await getSourceStore(store)).linksOf(docs.map((d) => d.id));
    expect([...links.values()].map((l) => l.url)).toContain(`${site.base}/docs/moved.html`);
    expect([...links.values()].map((l) => l.url)).toContain(`${site.base}/files/manual.pdf`);

    site.pages.set("/docs/beta.html", {
      type: "text/html",
      body: "<html><head><title>Beta guide</title></head><body><main><p>Beta now covers the second edition of the giraffe schedule.</p></main></body></html>",
    });
    site.pages.delete("/docs/alpha.html");
    const before304 = site.notModified;
    const second = await sync(source);
    expect(second).toMatchObject({ added: 0, updated: 1, removed: 1, unchanged: 3, error: null });
    // The unchanged pages were revalidated (304), not downloaded and parsed again.
    expect(site.notModified - before304).toBe(3);
    expect(await titles()).toEqual(["Beta guide", "Handbook", "Moved guide", "manual"]);
    expect(await text("Beta guide")).toContain("second edition");
    expect(site.hits.get("/docs/private/secret.html")).toBeUndefined();

    const removed = await removeSource(store, source);
    expect(removed).toBe(4);
    expect(await titles()).toEqual([]);
  });

  it("re-indexes a page when its main text changes, not when only its navigation does", async () => {
    const { source, run } = await add({ kind: "web", url: `${site.base}/docs/`, mode: "site" });
    expect(run).toMatchObject({ added: 5, error: null });
    const html = [...site.pages].filter(([, p]) => p.type.startsWith("text/html"));
    for (const [path, page] of html)
      site.pages.set(path, {
        ...page,
        body: String(page.body).replace('<nav><a href="/docs/">Home</a></nav>', '<nav><a href="/docs/">Start</a> · Week 41</nav>'),
      });
    expect(html.length).toBeGreaterThanOrEqual(4);
    const navOnly = await sync(source);
    expect(navOnly).toMatchObject({ added: 0, updated: 0, removed: 0, unchanged: 5, error: null });
    const beta = site.pages.get("/docs/beta.html")!;
    site.pages.set("/docs/beta.html", { ...beta, body: String(beta.body).replace("first edition", "second edition") });
    expect(await sync(source)).toMatchObject({ added: 0, updated: 1, unchanged: 4, error: null });
    expect(await text("Beta guide")).toContain("second edition");
  });

  it("reads a sitemap's pages, leaving out what robots.txt disallows", async () => {
    const { run } = await add({ kind: "web", url: `${site.base}/docs/sitemap.xml`, mode: "sitemap" });
    expect(run).toMatchObject({ added: 2, error: null });
    expect(await titles()).toEqual(["Alpha guide", "Beta guide"]);
    expect(site.hits.get("/docs/private/secret.html")).toBeUndefined();
  });

  it("refuses a private address an admin did not allow when the source is added, and never fetches it", async () => {
    const port = new URL(site.base).port;
    const before = (await listSourceViews(store, "default")).length;
    await expect(add({ kind: "web", url: `http://localhost:${port}/docs/`, mode: "site" })).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/localhost is not a public address/),
    });
    await expect(add({ kind: "web", url: `http://10.255.255.1:${port}/docs/`, mode: "page" })).rejects.toMatchObject({ status: 400 });
    await expect(add({ kind: "git", url: `http://[::1]:${port}/repo.git` })).rejects.toMatchObject({ status: 400 });
    expect(await listSourceViews(store, "default")).toHaveLength(before);
    expect([...site.hits.values()].reduce((a, b) => a + b, 0)).toBe(0);
    expect(await titles()).toEqual([]);
  });
});

describe("git source", () => {
  it("indexes the filtered paths at a commit, and a second sync reads only the files that changed", async () => {
    const repo = await serveGitRepo(await tempDir());
    try {
      const first = repo.commit({
        "docs/a.md": "# Alpha\n\nThe alpha document talks about the okapi.",
        "docs/b.md": "# Beta\n\nThe beta document talks about the zebra.",
        "docs/c.md": "# Gamma\n\nThe gamma document talks about the tapir.",
        "docs/logo.gif": "GIF89a: not a format the app reads",
        "src/main.ts": "console.log('code is not indexed');",
      });
      const { source, run } = await add({ kind: "git", url: repo.url, branch: "main", paths: ["docs"] });
      expect(run).toMatchObject({ added: 3, skipped: 1, error: null, note: `commit ${first}` });
      expect(await titles()).toEqual(["Alpha", "Beta", "Gamma"]);
      const docs = await store.listDocuments({ kb: "default" });
      const links = await (await getSourceStore(store)).linksOf(docs.map((d) => d.id));
      // A plain Git server has no web view: no link is made up for it (lib/sources/git-links.test.ts has the hosts that do).
      expect([...links.values()].map((l) => l.url)).toEqual(["", "", ""]);

      const second = repo.commit({
        "docs/b.md": "# Beta\n\nThe beta document now talks about the quagga.",
        "docs/c.md": null,
        "docs/d.md": "# Delta\n\nThe delta document talks about the kudu.",
      });
      const run2 = await sync(source);
      expect(run2).toMatchObject({ added: 1, updated: 1, removed: 1, unchanged: 1, error: null, note: `commit ${second}` });
      expect(await titles()).toEqual(["Alpha", "Beta", "Delta"]);
      expect(await text("Beta")).toContain("quagga");
    } finally {
      await repo.close();
    }
  });
});

describe("s3 source", () => {
  it("adds, changes and deletes objects between syncs; the key is stored sealed", async () => {
    const port = 3990;
    const s3 = await startS3(await tempDir(), port, "kb-bucket");
    const aws = new AwsClient({ accessKeyId: "S3RVER", secretAccessKey: "S3RVER", region: "us-east-1", service: "s3" });
    const put = (key: string, body: string) => aws.fetch(`http://127.0.0.1:${port}/kb-bucket/${key}`, { method: "PUT", body });
    const del = (key: string) => aws.fetch(`http://127.0.0.1:${port}/kb-bucket/${key}`, { method: "DELETE" });
    try {
      await put("team/a.md", "# Okapi\n\nOkapis live in the forest.");
      await put("team/b.txt", "Zebras have stripes.");
      await put("other/c.md", "# Outside\n\nNot under the prefix.");
      const input = {
        kind: "s3",
        url: "s3://kb-bucket/team/",
        endpoint: `http://127.0.0.1:${port}`,
        accessKeyId: "S3RVER",
        secretAccessKey: "S3RVER",
      };
      const { source, run } = await add(input);
      expect(run).toMatchObject({ added: 2, error: null });
      expect(source.secret).not.toContain("S3RVER");
      expect(JSON.stringify(source.config)).not.toContain("secretAccessKey");
      expect(openSecrets(source.secret)).toEqual({ secretAccessKey: "S3RVER" });

      await put("team/a.md", "# Okapi\n\nOkapis live in the rainforest of Congo.");
      await del("team/b.txt");
      await put("team/d.md", "# Tapir\n\nTapirs swim.");
      const run2 = await sync(source);
      expect(run2).toMatchObject({ added: 1, updated: 1, removed: 1, unchanged: 0, error: null });
      expect(await titles()).toEqual(["Okapi", "Tapir"]);
      expect(await text("Okapi")).toContain("Congo");

      delete process.env.SOURCE_SECRET_KEY;
      await expect(addSource(store, "default", sourceInputSchema.parse(input), { admin: true })).rejects.toThrow(/SOURCE_SECRET_KEY/);
    } finally {
      process.env.SOURCE_SECRET_KEY = KEY;
      await s3.close();
    }
  });
});

describe("folder source", () => {
  it("is for admins only, and follows added, changed and deleted files", async () => {
    const dir = await tempDir();
    await mkdir(path.join(dir, "sub"));
    await writeFile(path.join(dir, "a.md"), "# One\n\nFirst file about lemurs.");
    await writeFile(path.join(dir, "sub", "b.md"), "# Two\n\nSecond file about ibexes.");
    await expect(addSource(store, "default", sourceInputSchema.parse({ kind: "folder", path: dir }), { admin: false })).rejects.toThrow(
      /admin/,
    );
    const { source, run } = await add({ kind: "folder", path: dir }, true);
    expect(run).toMatchObject({ added: 2, error: null });
    await writeFile(path.join(dir, "a.md"), "# One\n\nFirst file about lemurs and their tails.");
    await rm(path.join(dir, "sub", "b.md"));
    const run2 = await sync(source);
    expect(run2).toMatchObject({ added: 0, updated: 1, removed: 1, error: null });
    expect(await titles()).toEqual(["One"]);
    // A document deleted in the app comes back with the next sync, though its file did not change.
    const [one] = await store.listDocuments({ kb: "default" });
    await store.deleteDocument(one.id);
    expect(await sync(source)).toMatchObject({ added: 1, unchanged: 0, removed: 0, error: null });
    expect(await titles()).toEqual(["One"]);
  });
});

describe("first-sync confirmation", () => {
  it("stops a first sync past SOURCE_CONFIRM_OVER items, keeping them, until an editor confirms; then syncs whole without asking", async () => {
    const dir = await tempDir();
    for (const n of [1, 2, 3, 4, 5]) await writeFile(path.join(dir, `f${n}.md`), `# File ${n}\n\nNote ${n} about tapirs.`);
    process.env.SOURCE_CONFIRM_OVER = "3";
    try {
      const { source, run } = await add({ kind: "folder", path: dir }, true);
      expect(run).toMatchObject({ added: 3, needsConfirmation: 3, confirmed: false });
      expect(run.error).toBe(
        "the source holds more than 3 items (SOURCE_CONFIRM_OVER): the first 3 were indexed; confirm to index them all",
      );
      const sources = await getSourceStore(store);
      // The next scheduled sync asks again: nothing more is indexed without the editor.
      expect(await sync((await sources.get(source.id))!)).toMatchObject({ needsConfirmation: 3, removed: 0 });
      expect(await titles()).toHaveLength(3);
      await expect(updateSource(store, (await sources.get(source.id))!, sourcePatchSchema.parse({ confirm: true }))).resolves.toBeTruthy();
      expect(await runningPromise(source.id)).toMatchObject({ added: 2, unchanged: 3, error: null, confirmed: true });
      expect(await titles()).toHaveLength(5);
      // Confirmed once: later syncs hold more than the limit without asking, and a confirmation is refused.
      await writeFile(path.join(dir, "f6.md"), "# File 6\n\nNote 6 about tapirs.");
      const confirmedSource = (await sources.get(source.id))!;
      expect(await sync(confirmedSource)).toMatchObject({ added: 1, error: null, confirmed: true });
      await expect(updateSource(store, confirmedSource, sourcePatchSchema.parse({ confirm: true }))).rejects.toThrow(/not waiting/);
    } finally {
      delete process.env.SOURCE_CONFIRM_OVER;
    }
  });
});

describe("front matter only", () => {
  it("a Markdown file with front matter and no text is skipped with a note, not failed, on every sync", async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, "a.md"), "# One\n\nA file about lemurs.");
    await writeFile(path.join(dir, "meta.md"), "---\ntitle: Only metadata\ntags: [x]\n---\n");
    const { source, run } = await add({ kind: "folder", path: dir }, true);
    const note = { item: "meta.md", reason: expect.stringMatching(/front matter only/) };
    expect(run).toMatchObject({ added: 1, skipped: 1, failed: [], notes: [note], error: null });
    expect(await sync(source)).toMatchObject({ unchanged: 1, skipped: 1, failed: [], notes: [note], error: null });
    expect(await titles()).toEqual(["One"]);
  });
});

describe("scheduler", () => {
  it("watches a folder from the moment it is added, not from the next tick", async () => {
    // Nothing else due: the scheduler's first tick would queue the earlier tests' sources ahead of the watched sync.
    const all = await getSourceStore(store);
    const later = new Date(Date.now() + 3_600_000).toISOString();
    for (const s of await all.list()) await all.put({ ...s, nextRunAt: later });
    const stop = runSourceScheduler(store, 3_600_000);
    try {
      const dir = await tempDir();
      await writeFile(path.join(dir, "a.md"), "# Kelp\n\nKelp grows a foot a day.");
      const { source, run } = await add({ kind: "folder", path: dir, scheduleMinutes: 60 }, true);
      expect(run).toMatchObject({ added: 1 });
      await writeFile(path.join(dir, "b.md"), "# Urchins\n\nUrchins graze the kelp.");
      const sources = await getSourceStore(store);
      await vi.waitFor(async () => expect((await sources.get(source.id))?.lastRun).toMatchObject({ added: 1, unchanged: 1 }), {
        timeout: 30_000,
        interval: 200,
      });
      await removeSource(store, (await sources.get(source.id))!);
    } finally {
      stop();
    }
  });

  it("syncs a source when it is due and a watched folder when it changes; SOURCE_SCHEDULER turns it off", async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, "a.md"), "# Tides\n\nThe tide table is posted on Mondays.");
    const { source } = await add({ kind: "folder", path: dir, scheduleMinutes: 60 }, true);
    const sources = await getSourceStore(store);
    const lastRun = async () => (await sources.get(source.id))?.lastRun;
    const first = await lastRun();
    expect(first).toMatchObject({ added: 1 });
    // Due now: the next tick syncs it and sets the next run an hour on.
    await writeFile(path.join(dir, "a.md"), "# Tides\n\nThe tide table is posted on Mondays and Thursdays.");
    await sources.put({ ...(await sources.get(source.id))!, nextRunAt: new Date(Date.now() - 1000).toISOString() });
    const stop = runSourceScheduler(store, 100);
    try {
      await vi.waitFor(async () => expect(await lastRun()).toMatchObject({ updated: 1 }), { timeout: 20_000, interval: 100 });
      const next = Date.parse((await sources.get(source.id))!.nextRunAt!);
      expect(next - Date.now()).toBeGreaterThan(59 * 60_000);
      // Not due: a new file is picked up by the folder watch, a few seconds after it appears.
      // (the tick that ran the sync also set the watch)
      await writeFile(path.join(dir, "b.md"), "# Buoys\n\nRed buoys mark the channel's left side.");
      await vi.waitFor(async () => expect(await lastRun()).toMatchObject({ added: 1, unchanged: 1 }), { timeout: 20_000, interval: 200 });
      expect(await titles()).toEqual(["Buoys", "Tides"]);
    } finally {
      stop();
    }
    expect(schedulerEnabled()).toBe(true);
    for (const [value, on] of [
      ["off", false],
      [" ON ", true],
    ] as const) {
      process.env.SOURCE_SCHEDULER = value;
      expect(schedulerEnabled()).toBe(on);
    }
    process.env.SOURCE_SCHEDULER = "sometimes";
    expect(() => schedulerEnabled()).toThrow(/SOURCE_SCHEDULER must be "on" or "off"/);
    delete process.env.SOURCE_SCHEDULER;
  });
});

afterAll(() => {
  delete process.env.SOURCE_ALLOW_HOSTS;
});

describe("secrets", () => {
  it("seals with the key, opens only with the same key, and refuses to seal without one", async () => {
    const sealed = sealSecrets({ token: "ghp_abc" });
    expect(sealed).not.toContain("ghp_abc");
    expect(openSecrets(sealed)).toEqual({ token: "ghp_abc" });
    process.env.SOURCE_SECRET_KEY = "another-key-of-sixteen-chars";
    try {
      expect(() => openSecrets(sealed)).toThrow(/another SOURCE_SECRET_KEY/);
    } finally {
      process.env.SOURCE_SECRET_KEY = KEY;
    }
    expect(sealSecrets({})).toBe("");
  });
});

describe("knowledge base rename and delete", () => {
  it("moves a source and its documents' links with a rename, and removes the source with the knowledge base", async () => {
    const { createKnowledgeBase, getRegistry } = await import("@/lib/kb");
    const { deleteKnowledgeBase, updateKnowledgeBase } = await import("@/lib/admin/knowledge-bases");
    const registry = await getRegistry(store);
    await createKnowledgeBase(store, registry, { name: "team" });
    const dir = await tempDir();
    await writeFile(path.join(dir, "a.md"), "# Notes\n\nThe team notes mention the pangolin.");
    const source = await addSource(store, "team", sourceInputSchema.parse({ kind: "folder", path: dir }), { admin: true });
    await runningPromise(source.id);
    await updateKnowledgeBase(store, registry, "team", { name: "crew" });
    const sources = await getSourceStore(store);
    expect((await sources.list("crew")).map((s) => s.id)).toEqual([source.id]);
    const docs = await store.listDocuments({ kb: "crew" });
    expect(docs).toHaveLength(1);
    expect((await sources.linksOf([docs[0].id])).get(docs[0].id)?.sourceId).toBe(source.id);
    const moved = (await sources.get(source.id))!;
    expect(await sync(moved)).toMatchObject({ unchanged: 1, added: 0, removed: 0, error: null });
    await deleteKnowledgeBase(store, registry, "crew");
    expect(await sources.list()).toEqual([]);
  });
});
