/**
 * Sources stay inside what was configured, against hostile servers: S3 keys with dot segments, listings that
 * never end, a sync cancelled by removing its source, oversized Git blobs and folder files, an unreadable
 * subfolder, a sync killed with SIGKILL, a changed SOURCE_SECRET_KEY, and the settings checked at start-up.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { serveGitRepo } from "@/e2e/helpers/git-server";
import { type HostileS3, serveHostileS3 } from "@/e2e/helpers/hostile-s3";
import { serveTestSite } from "@/e2e/helpers/test-site";
import { sourceLimits } from "@/lib/config";
import { createOfflineEmbedder } from "@/lib/embed/offline";
import { settingsProblems } from "@/lib/server/settings-check";
import { runningOf, runningPromise } from "@/lib/sources/engine";
import { reconcileSources } from "@/lib/sources/reconcile";
import { sourceInputSchema } from "@/lib/sources/schema";
import { addSource, removeSource, startSync, updateSource } from "@/lib/sources/service";
import { getSourceStore } from "@/lib/sources/store";
import { openStore, type Store } from "@/lib/store";
import { tempDirs } from "@/lib/test-helpers/temp-dirs";

const tempDir = tempDirs("sources-limits-");
const KEY = "test-source-secret-key-0123456789";
const ENV = { SOURCE_ALLOW_HOSTS: "127.0.0.1", SOURCE_WEB_DELAY_MS: "0", SOURCE_SECRET_KEY: KEY };

let store: Store;
let s3: HostileS3;
beforeAll(async () => {
  process.env.DATA_DIR = await tempDir();
  Object.assign(process.env, ENV);
});
afterAll(() => {
  for (const k of [...Object.keys(ENV), "SOURCE_MAX_BYTES", "SOURCE_SYNC_TIMEOUT_S", "SOURCE_MAX_ITEMS"]) delete process.env[k];
});
beforeEach(async () => {
  store = await openStore({ uri: await tempDir(), embedder: createOfflineEmbedder(64) });
  s3 = await serveHostileS3("kb-bucket");
  return async () => {
    delete process.env.SOURCE_MAX_BYTES;
    delete process.env.SOURCE_SYNC_TIMEOUT_S;
    delete process.env.SOURCE_MAX_ITEMS;
    process.env.SOURCE_SECRET_KEY = KEY;
    await s3.close();
    await store.close();
  };
});

const s3Input = (extra: object = {}) =>
  sourceInputSchema.parse({
    kind: "s3",
    url: "s3://kb-bucket/docs/",
    endpoint: s3.endpoint,
    accessKeyId: "key",
    secretAccessKey: "secret",
    scheduleMinutes: 0,
    ...extra,
  });
const add = async (input: ReturnType<typeof sourceInputSchema.parse>, admin = true) => {
  const source = await addSource(store, "default", input, { admin });
  return { source, run: (await runningPromise(source.id))! };
};
const titles = async () => (await store.listDocuments({ kb: "default" })).map((d) => d.title).sort();

describe("s3 source against a hostile server", () => {
  it("never fetches a key with . or .. segments or outside the prefix, and says so in the run's note", async () => {
    s3.keys = ["docs/a.md", "docs/../../other/secret.md", "docs/./docs/b.md", "docs/x/../../../kb-bucket/docs/a.md", "elsewhere/c.md"];
    s3.objects.set("/kb-bucket/docs/a.md", "# Inside\n\nThe okapi lives in the forest.");
    s3.objects.set("/other/secret.md", "# Secret\n\nThe other bucket's secret.");
    s3.objects.set("/kb-bucket/docs/docs/b.md", "# Dotted\n\nReached through a dot segment.");
    s3.objects.set("/kb-bucket/elsewhere/c.md", "# Outside\n\nOutside the prefix.");
    const { run } = await add(s3Input());
    expect(run).toMatchObject({ added: 1, error: null });
    expect(run.note).toMatch(/4 keys with \. or \.\. segments or outside the prefix not fetched/);
    expect(await titles()).toEqual(["Inside"]);
    expect(s3.requests.filter((r) => !r.endsWith("?list"))).toEqual(["/kb-bucket/docs/a.md"]);
  });

  it("stops a listing that repeats its continuation token, and one that never ends within the sync's time budget", async () => {
    s3.keys = ["docs/a.md"];
    s3.objects.set("/kb-bucket/docs/a.md", "# Inside\n\nThe okapi lives in the forest.");
    s3.endless = "same";
    const { run } = await add(s3Input());
    expect(run.error).toMatch(/repeats a continuation token after 2 pages/);
    expect(s3.requests.filter((r) => r.endsWith("?list"))).toHaveLength(2);

    // New tokens forever: the time budget ends it, and the sync queued behind it runs.
    s3.endless = "new";
    process.env.SOURCE_SYNC_TIMEOUT_S = "2";
    const dir = await tempDir();
    await writeFile(path.join(dir, "n.md"), "# Notes\n\nThe narwhal notes.");
    const listed = s3.requests.length;
    const endless = await addSource(store, "default", s3Input(), { admin: true });
    // The endless sync took its 2 s budget when it started listing; the folder sync behind it takes the default one,
    // so that on a busy machine it is not stopped too.
    await vi.waitFor(() => expect(s3.requests.length).toBeGreaterThan(listed), { timeout: 30_000, interval: 20 });
    delete process.env.SOURCE_SYNC_TIMEOUT_S;
    const folder = await addSource(store, "default", sourceInputSchema.parse({ kind: "folder", path: dir, scheduleMinutes: 0 }), {
      admin: true,
    });
    const [stopped, after] = await Promise.all([runningPromise(endless.id), runningPromise(folder.id)]);
    expect(stopped?.error).toMatch(/longer than its budget of 2 s \(SOURCE_SYNC_TIMEOUT_S\)/);
    expect(after).toMatchObject({ added: 1, error: null });
    expect(await titles()).toContain("Notes");
  });

  it("removing a source cancels its sync under way, and one waiting for its turn without waiting for the others", async () => {
    s3.keys = Array.from({ length: 200 }, (_, i) => `docs/n${i}.md`);
    for (const k of s3.keys) s3.objects.set(`/kb-bucket/${k}`, `# ${k}\n\nObject ${k} about the ibis.`);
    s3.delayMs = 200;
    const source = await addSource(store, "default", s3Input(), { admin: true });
    const run = runningPromise(source.id)!;
    await vi.waitFor(() => expect(s3.objectGets()).toBeGreaterThanOrEqual(3), { timeout: 30_000, interval: 50 });
    // A second source waits behind the first; removing it ends it while the first still runs.
    const queued = await addSource(store, "default", s3Input({ url: "s3://kb-bucket/docs/n1" }), { admin: true });
    const queuedRun = runningPromise(queued.id)!;
    await removeSource(store, queued);
    expect(runningOf(source.id)).not.toBeNull();
    await removeSource(store, source);
    expect((await queuedRun).error).toBe("the source was removed");
    expect((await run).error).toBe("the source was removed");
    expect(runningOf(source.id)).toBeNull();
    const gets = s3.objectGets();
    expect(gets).toBeLessThan(50);
    expect(await store.listDocuments({ kb: "default" })).toEqual([]);
    expect(await (await getSourceStore(store)).list()).toEqual([]);
  });

  it("takes the secret again by PATCH after SOURCE_SECRET_KEY changed", async () => {
    s3.keys = ["docs/a.md"];
    s3.objects.set("/kb-bucket/docs/a.md", "# Inside\n\nThe okapi lives in the forest.");
    const { source, run } = await add(s3Input());
    expect(run.error).toBeNull();
    process.env.SOURCE_SECRET_KEY = "a-new-key-of-at-least-sixteen";
    expect((await startSync(store, source)).error).toMatch(/another SOURCE_SECRET_KEY/);
    await expect(updateSource(store, source, { token: "ghp_x" })).rejects.toThrow(/s3 source has no token/);
    const updated = await updateSource(store, source, { secretAccessKey: "secret-again" });
    expect(updated.secret).not.toContain("secret-again");
    expect(await startSync(store, updated)).toMatchObject({ error: null, unchanged: 1 });
  });

  it("validates the region", () => {
    for (const region of ["us-east-1/../x", "evil.example", "US-EAST-1", "-x", "a b"]) {
      const r = sourceInputSchema.safeParse({ kind: "s3", url: "s3://kb-bucket/", accessKeyId: "k", secretAccessKey: "s", region });
      expect(r.success, region).toBe(false);
      expect(r.error?.issues[0].message).toMatch(/region must be a region name/);
    }
    for (const region of ["us-east-1", "auto", "eu-central-2"]) {
      expect(sourceInputSchema.safeParse({ kind: "s3", url: "s3://b1/", accessKeyId: "k", secretAccessKey: "s", region }).success).toBe(
        true,
      );
    }
  });
});

describe("SOURCE_MAX_BYTES for Git and folders", () => {
  it("fails an oversized Git blob alone, naming it and the limit, before reading it", async () => {
    process.env.SOURCE_MAX_BYTES = "100000";
    const repo = await serveGitRepo(await tempDir());
    try {
      repo.commit({
        "docs/big.md": `# Big\n\n${"The large file about the yak. ".repeat(8000)}`,
        "docs/small.md": "# Small\n\nThe small file about the gnu.",
      });
      const { run } = await add(sourceInputSchema.parse({ kind: "git", url: repo.url, branch: "main", scheduleMinutes: 0 }));
      expect(run).toMatchObject({ added: 1, error: null });
      expect(run.failed).toEqual([
        { item: "docs/big.md", reason: expect.stringMatching(/^\d+ bytes, larger than the limit of 100000 bytes \(SOURCE_MAX_BYTES\)$/) },
      ]);
      expect(await titles()).toEqual(["Small"]);
    } finally {
      await repo.close();
    }
  });

  it("fails an oversized folder file alone, and skips an unreadable subfolder with a note, keeping its documents", async () => {
    process.env.SOURCE_MAX_BYTES = "100000";
    const dir = await tempDir();
    await writeFile(path.join(dir, "big.md"), `# Big\n\n${"The large file about the yak. ".repeat(8000)}`);
    await writeFile(path.join(dir, "small.md"), "# Small\n\nThe small file about the gnu.");
    await mkdir(path.join(dir, "deep"));
    await writeFile(path.join(dir, "deep", "kept.md"), "# Kept\n\nThe file in the deep folder about the eland.");
    const { source, run } = await add(sourceInputSchema.parse({ kind: "folder", path: dir, scheduleMinutes: 0 }));
    expect(run).toMatchObject({ added: 2, error: null, failed: [{ item: "big.md", reason: expect.stringMatching(/SOURCE_MAX_BYTES/) }] });
    // A folder nested past PATH_MAX cannot be read (ENAMETOOLONG), by root too (a folder chmod 000 still is).
    const long = "d".repeat(250);
    execFileSync("mkdir", ["-p", Array.from({ length: 18 }, () => long).join("/")], { cwd: path.join(dir, "deep") });
    try {
      const second = await startSync(store, source);
      expect(second).toMatchObject({ error: null, unchanged: 2, removed: 0 });
      expect(second.note).toMatch(/1 unreadable folders skipped: deep\/d+(\/d+)* \(ENAMETOOLONG\)/);
      expect(await titles()).toEqual(["Kept", "Small"]);
    } finally {
      execFileSync("rm", ["-rf", path.join(dir, "deep")]);
    }
  });
});

describe("a sync killed mid-way", { timeout: 300_000 }, () => {
  it("leaves, after start-up's reconcile, no document that no source owns, and its run shows as interrupted", async () => {
    const uri = await tempDir();
    await store.close();
    s3.keys = Array.from({ length: 60 }, (_, i) => `docs/n${i}.md`);
    for (const k of s3.keys) s3.objects.set(`/kb-bucket/${k}`, `# ${k}\n\nObject ${k} about the heron.`);
    s3.delayMs = 100;
    const child = spawn(process.execPath, ["--import", "tsx", "e2e/fixtures/source-sync-child.ts", uri, s3.endpoint], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (c) => (output += c));
    child.stderr.on("data", (c) => (output += c));
    const exited = new Promise((resolve) => child.on("exit", resolve));
    try {
      // Object n+1 is asked for once object n is stored: six asked, five documents written.
      await vi.waitFor(() => expect(s3.objectGets(), output).toBeGreaterThanOrEqual(6), { timeout: 200_000, interval: 50 });
    } finally {
      child.kill("SIGKILL");
    }
    await exited;
    store = await openStore({ uri, embedder: createOfflineEmbedder(64) });
    const before = await store.listDocuments({ kb: "default" });
    expect(before.length).toBeGreaterThanOrEqual(5);
    const sources = await getSourceStore(store);
    const [source] = await sources.list();
    expect(source.lastRun?.finishedAt).toBeNull();

    expect(await reconcileSources(store, 0)).toEqual({ interrupted: 1, removed: before.length });
    const owned = await sources.ownedDocuments();
    expect((await store.listDocuments()).filter((d) => !owned.has(d.id))).toEqual([]);
    expect((await sources.get(source.id))?.lastRun?.error).toMatch(/^interrupted/);
  });
});

describe("a hostile listing's memory", { timeout: 600_000 }, () => {
  // 10,000 hostile pages in one sync process: two syncs of SOURCE_MAX_LIST_PAGES = 5,000 pages of 200 new keys each.
  // The process starts at about 200 MB (tsx, LanceDB) and peaks at 250-350 MB here (higher on a busy machine, where the
  // collector runs later), its heap the same after each sync; the code that kept skipped keys (and with them each
  // page's text) grew about 0.15 MB a page, 757 MB after 5,000. Each page costs the same CPU time whatever the keys'
  // length, so the keys are long.
  const PEAK_RSS_BOUND = 500 * 1024 * 1024;
  const PAGES = 5_000;

  it("lists twice SOURCE_MAX_LIST_PAGES pages of new keys, every one skipped, in bounded memory, and the process lives on", async () => {
    const uri = await tempDir();
    await store.close();
    const perPage = 200;
    s3.endless = "new";
    s3.pageKeys = (page) => Array.from({ length: perPage }, (_, i) => `docs/../elsewhere/page-${page}-key-${i}-${"x".repeat(200)}.md`);
    const child = spawn(process.execPath, ["--import", "tsx", "e2e/fixtures/source-sync-child.ts", uri, s3.endpoint, "report"], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, SOURCE_MAX_LIST_PAGES: String(PAGES) },
    });
    let output = "";
    child.stdout.on("data", (c) => (output += c));
    child.stderr.on("data", (c) => (output += c));
    const code = await new Promise((resolve) => child.on("exit", resolve));
    store = await openStore({ uri, embedder: createOfflineEmbedder(64) });
    expect(code, output).toBe(0);
    const report = JSON.parse(output.trim().split("\n").pop() ?? "");
    for (const run of report.runs) {
      expect(run.error).toBe(`the bucket listing did not end after ${PAGES} pages`);
      expect(run.skipped).toBe(PAGES * perPage);
    }
    expect(s3.requests.filter((r) => r.endsWith("?list"))).toHaveLength(2 * PAGES);
    expect(s3.objectGets()).toBe(0);
    expect(report.peakRssBytes).toBeLessThan(PEAK_RSS_BOUND);
  });

  it("takes an S3 listing of more than 10,000 pages for one that never ends, unless SOURCE_MAX_LIST_PAGES says otherwise", () => {
    expect(sourceLimits().maxListPages).toBe(10_000);
    process.env.SOURCE_MAX_LIST_PAGES = "20000";
    try {
      expect(sourceLimits().maxListPages).toBe(20_000);
    } finally {
      delete process.env.SOURCE_MAX_LIST_PAGES;
    }
  });

  it("stops a sync past SOURCE_MAX_ITEMS with an error naming it, removing nothing, and lists 100 failures at most", async () => {
    s3.keys = ["docs/a.md"];
    s3.objects.set("/kb-bucket/docs/a.md", "# Inside\n\nThe okapi lives in the forest.");
    const { source } = await add(s3Input());
    expect(await titles()).toEqual(["Inside"]);
    // Then new readable keys on every page, none of which can be read.
    process.env.SOURCE_MAX_ITEMS = "250";
    s3.endless = "new";
    s3.pageKeys = (page) => Array.from({ length: 100 }, (_, i) => `docs/p${page}-${i}.md`);
    const run = await startSync(store, source);
    expect(run.error).toMatch(/^the source holds more than 250 items \(SOURCE_MAX_ITEMS\)/);
    expect(run.failed).toHaveLength(100);
    expect(run.failedUnlisted).toBe(150);
    expect(s3.requests.filter((r) => r.endsWith("?list"))).toHaveLength(1 + 3);
    expect(await titles()).toEqual(["Inside"]);
  });
});

describe("a hostile web site", () => {
  it("keeps 500 links of a page and a frontier no longer than maxPages, however many links the page holds", async () => {
    const site = await serveTestSite();
    try {
      const links = Array.from({ length: 3000 }, (_, i) => `<a href="/wide/p${i}.html">page ${i}</a>`).join(" ");
      site.pages.set("/wide/", {
        type: "text/html",
        body: `<html><body><h1>Wide</h1><p>The wide page about the tapir.</p>${links}</body></html>`,
      });
      const input = sourceInputSchema.parse({ kind: "web", url: `${site.base}/wide/`, mode: "site", maxPages: 4, scheduleMinutes: 0 });
      const { source, run } = await add(input);
      expect(run.error).toBeNull();
      const items = await (await getSourceStore(store)).items(source.id);
      expect(items.get(`${site.base}/wide/`)?.links).toHaveLength(500);
      expect([...site.hits.keys()].filter((p) => p.startsWith("/wide/p"))).toHaveLength(3);
    } finally {
      await site.close();
    }
  });
});

describe("settings checked at start-up", () => {
  it("names SOURCE_SECRET_KEY, TRUSTED_PROXY_HEADER and TRUSTED_PROXIES when they are wrong", () => {
    expect(settingsProblems()).toEqual([]);
    const bad = { SOURCE_SECRET_KEY: "short", TRUSTED_PROXY_HEADER: "X-Client", TRUSTED_PROXIES: "10.0.0.0/8, proxy.local" };
    Object.assign(process.env, bad);
    try {
      const problems = settingsProblems().join("\n");
      expect(problems).toMatch(/SOURCE_SECRET_KEY must be at least 16 characters/);
      expect(problems).toMatch(/TRUSTED_PROXY_HEADER: "X-Client"/);
      delete process.env.TRUSTED_PROXY_HEADER;
      expect(settingsProblems().join("\n")).toMatch(/TRUSTED_PROXIES: "proxy.local" is not an IP address/);
    } finally {
      process.env.SOURCE_SECRET_KEY = KEY;
      delete process.env.TRUSTED_PROXY_HEADER;
      delete process.env.TRUSTED_PROXIES;
    }
  });
});
