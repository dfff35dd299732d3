/**
 * Sources through the built server: the routes (validation, no secrets answered, Sync now, remove with the
 * documents) and the /kbs flow in a real browser in English and Chinese: add a web source and a Git source,
 * watch the status line, Sync now, remove a source after its confirmation; a drive (a WebDAV folder on a real
 * Apache), a mailbox (a real Dovecot), a wiki (a real MediaWiki) and a Notion workspace (its contract server,
 * e2e/helpers/notion-contract.ts) added in the UI each answer a question, the cited document's Original being the
 * item in its service; in Chinese, a Feishu wiki (the contract server of e2e/helpers/feishu-contract.ts)
 * answers a Chinese question, its Original the document's page in Feishu.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Page } from "@playwright/test";
import { ImapFlow } from "imapflow";
import { apacheMissing, startApacheDav } from "./helpers/apache-dav";
import { ask } from "./helpers/chat";
import { dovecotMissing, startDovecot } from "./helpers/dovecot";
import { startFeishuContract } from "./helpers/feishu-contract";
import { type GitRepo, serveGitRepo } from "./helpers/git-server";
import { mediawikiMissing, startMediaWiki } from "./helpers/mediawiki";
import { block, startNotionContract } from "./helpers/notion-contract";
import { expect, PORTS, SOURCE_PORTS, test } from "./helpers/servers";
import { serveTestSite, type TestSite } from "./helpers/test-site";

const RUN = Math.random().toString(36).slice(2, 8);
const BASE = `http://127.0.0.1:${PORTS.offline}`;
/** Where the start-up check's own servers would listen (they stop before they do). */
const STARTUP_PORT = PORTS.offline + 66;
const json = { "content-type": "application/json" };

let site: TestSite;
let repo: GitRepo;
let repoDir = "";

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  site = await serveTestSite(SOURCE_PORTS.site);
  repoDir = mkdtempSync(path.join(os.tmpdir(), "e2e-git-"));
  repo = await serveGitRepo(repoDir, "handbook.git", SOURCE_PORTS.git);
  repo.commit({ "docs/onboarding.md": "# Onboarding\n\nNew starters meet the narwhal team on their first Monday.\n" });
});
test.afterAll(async () => {
  await site?.close();
  await repo?.close();
  if (repoDir) rmSync(repoDir, { recursive: true, force: true });
});

const createKb = (name: string) => fetch(`${BASE}/api/kbs`, { method: "POST", headers: json, body: JSON.stringify({ name }) });
const deleteKb = (name: string) => fetch(`${BASE}/api/kbs/${name}`, { method: "DELETE" });
const sources = (kb: string) => `${BASE}/api/kbs/${kb}/sources`;
const postSource = (kb: string, body: object) => fetch(sources(kb), { method: "POST", headers: json, body: JSON.stringify(body) });

/** Runs `body` on a new knowledge base `kb`, deleted again afterwards. */
async function withKb(kb: string, body: () => Promise<void>) {
  expect((await createKb(kb)).status).toBe(201);
  try {
    await body();
  } finally {
    await deleteKb(kb);
  }
}

async function settled(kb: string) {
  let list: { id: string; running: unknown; documents: number; lastRun: { added: number; error: string | null } | null }[] = [];
  await expect(async () => {
    list = (await (await fetch(sources(kb))).json()).sources;
    expect(list.every((s) => !s.running && s.lastRun)).toBe(true);
  }).toPass();
  return list;
}

test("the sources API validates, keeps secrets out of its answers, syncs now and removes a source with its documents", async () => {
  const kb = `src-api-${RUN}`;
  await withKb(kb, async () => {
    const bad = await postSource(kb, { kind: "web", url: "file:///etc/passwd" });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.message).toContain("http(s) URL");
    const noKb = await postSource(`nope-${RUN}`, { kind: "web", url: site.base });
    expect(noKb.status).toBe(404);

    const git = await postSource(kb, {
      kind: "git",
      url: repo.url,
      branch: "main",
      paths: ["docs"],
      token: "tok-SECRET-123",
      scheduleMinutes: 0,
    });
    expect(git.status).toBe(201);
    const added = await git.json();
    expect(JSON.stringify(added)).not.toContain("tok-SECRET-123");
    expect(added.source).toMatchObject({ kind: "git", hasSecret: true, scheduleMinutes: 0 });
    const [synced] = await settled(kb);
    expect(synced).toMatchObject({ documents: 1, lastRun: { added: 1, error: null } });
    expect(JSON.stringify(await (await fetch(sources(kb))).json())).not.toContain("tok-SECRET-123");
    const [doc] = (await (await fetch(`${BASE}/api/documents?kb=${kb}`)).json()).documents;
    const opened = await (await fetch(`${BASE}/api/documents/${doc.id}`)).json();
    // A plain Git server (git http-backend) has no page for a file: the document names its source, no link.
    expect(opened.sourceLink).toEqual({ sourceId: synced.id, url: "" });

    const now = await fetch(`${sources(kb)}/${synced.id}/sync`, { method: "POST" });
    expect(now.status).toBe(202);
    const [again] = await settled(kb);
    expect(again).toMatchObject({ documents: 1, lastRun: { added: 0, error: null } });

    await expect(async () => {
      const audit = await (await fetch(`${BASE}/api/audit?kb=${kb}`)).json();
      const actions = (audit.events as { action: string }[]).map((e) => e.action);
      expect(actions).toContain("source_add");
      expect(actions).toContain("source_sync");
    }).toPass();

    const removed = await fetch(`${sources(kb)}/${synced.id}`, { method: "DELETE" });
    expect(await removed.json()).toMatchObject({ documents: 1 });
    const docs = await (await fetch(`${BASE}/api/documents?kb=${kb}`)).json();
    expect(docs.documents).toEqual([]);
  });
});

test("a source's secret can be entered again by PATCH, only the field its kind has", async () => {
  const kb = `src-secret-${RUN}`;
  await withKb(kb, async () => {
    const added = await postSource(kb, { kind: "git", url: repo.url, branch: "main", paths: ["docs"], scheduleMinutes: 0 });
    const { source } = await added.json();
    expect(source.hasSecret).toBe(false);
    await settled(kb);
    const patch = (body: object) => fetch(`${sources(kb)}/${source.id}`, { method: "PATCH", headers: json, body: JSON.stringify(body) });
    const wrong = await patch({ secretAccessKey: "not-for-git" });
    expect(wrong.status).toBe(400);
    expect((await wrong.json()).error.message).toContain("git source has no secretAccessKey");
    const ok = await patch({ token: "tok-AGAIN-456" });
    expect(ok.status).toBe(200);
    const body = await ok.json();
    expect(body.source.hasSecret).toBe(true);
    expect(JSON.stringify(body)).not.toContain("tok-AGAIN-456");
  });
});

test("a wrong SOURCE_SECRET_KEY, TRUSTED_PROXY_HEADER or TRUSTED_PROXIES stops the server at start-up, naming it", async () => {
  test.setTimeout(600_000);
  for (const [name, value] of [
    ["SOURCE_SECRET_KEY", "short"],
    ["TRUSTED_PROXY_HEADER", "X-Client-IP"],
    ["TRUSTED_PROXIES", "proxy.example"],
    ["TRUSTED_PROXIES", "10.0.0.0/33"],
  ] as const) {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "e2e-startup-"));
    const child = spawn(process.execPath, ["server.mjs", "-p", String(STARTUP_PORT), "-H", "127.0.0.1"], {
      env: {
        ...process.env,
        NEXT_TELEMETRY_DISABLED: "1",
        DATA_DIR: dataDir,
        KNOWLEDGE_DIR: "/nonexistent",
        SOURCE_SECRET_KEY: "e2e-source-secret-key-0123456789",
        [name]: value,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => child.kill("SIGKILL"), 180_000);
      child.on("exit", (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    rmSync(dataDir, { recursive: true, force: true });
    expect(code, out).toBe(1);
    expect(out).toContain(`[config] ${name}`);
    expect(out).not.toContain("listening on");
  }
});

async function addSource(card: ReturnType<Page["locator"]>, fill: (form: ReturnType<Page["locator"]>) => Promise<void>) {
  await card.getByTestId("source-add").click();
  const form = card.getByTestId("source-form");
  await fill(form);
  await form.getByTestId("source-submit").click();
  await expect(form).toBeHidden();
}

for (const locale of ["en-US", "zh-CN"] as const) {
  test.describe(locale, () => {
    test.use({ locale });
    const zh = locale === "zh-CN";
    const kb = `src-ui-${zh ? "zh" : "en"}-${RUN}`;
    test.afterAll(async () => {
      await deleteKb(kb);
    });

    test("add a web and a Git source on /kbs, see the status line, Sync now, remove one after confirming", async ({ page }) => {
      expect((await createKb(kb)).status).toBe(201);
      await page.goto("/kbs");
      const card = page.locator(`[data-testid="kb-card"][data-kb="${kb}"]`);
      await expect(card.getByTestId("kb-sources")).toContainText(zh ? "数据源" : "Sources");

      await addSource(card, async (form) => {
        await form.getByTestId("source-url").fill(`${site.base}/docs/`);
      });
      const web = card.locator('[data-testid="source"][data-kind="web"]');
      await expect(web.getByTestId("source-status")).toContainText(zh ? "新增 5" : "5 added");
      await expect(card.getByTestId("kb-count")).toHaveText(/^5 /);

      await addSource(card, async (form) => {
        await form.getByTestId("source-kind").selectOption("git");
        await form.getByTestId("source-url").fill(repo.url);
        await form.getByTestId("source-paths").fill("docs");
      });
      const git = card.locator('[data-testid="source"][data-kind="git"]');
      await expect(git.getByTestId("source-status")).toContainText(zh ? "新增 1" : "1 added");
      await expect(card.getByTestId("kb-count")).toHaveText(/^6 /);

      await git.getByTestId("source-sync").click();
      await expect(git.getByTestId("source-status")).toContainText(zh ? "新增 0" : "0 added");
      await expect(git.getByTestId("source-status")).toContainText(zh ? "未变 1" : "1 unchanged");

      await web.getByTestId("source-remove").click();
      await expect(web).toContainText(zh ? "及其 5 篇文档" : "its 5 documents");
      await web.getByTestId("source-remove-confirm").click();
      await expect(web).toBeHidden();
      await expect(card.getByTestId("kb-count")).toHaveText(/^1 /);

      // A plain Git server (git http-backend) has no page for a file: the document view shows no "Original" link.
      const [doc] = (await (await fetch(`${BASE}/api/documents?kb=${kb}`)).json()).documents;
      await page.goto(`/documents/${doc.id}`);
      await expect(page.locator("dt", { hasText: zh ? "类型" : "Type" })).toBeVisible();
      await expect(page.getByTestId("document-original")).toHaveCount(0);
    });
  });
}

test.describe("WebDAV", () => {
  // Below 1024 px "Open in document" opens the document's own page, where its Original link is.
  test.use({ locale: "en-US", viewport: { width: 1000, height: 800 } });

  test("a WebDAV folder added on /kbs answers a question; the cited document's Original is the file on the server", async ({ page }) => {
    test.skip(!!apacheMissing(), apacheMissing() ?? "");
    const kb = `src-dav-${RUN}`;
    const dir = mkdtempSync(path.join(os.tmpdir(), "e2e-dav-"));
    const dav = await startApacheDav(dir, SOURCE_PORTS.dav);
    try {
      await dav.setPassword("kb-reader", "dav-e2e-PASSWORD");
      await mkdir(path.join(dav.files, "Team", "手册"), { recursive: true });
      await writeFile(
        path.join(dav.files, "Team", "手册", "quokka-care.md"),
        `# Quokka care ${RUN}\n\nThe quokkas of the island station are fed saltbush and wattle leaves at dusk, never bread.\n`,
      );
      expect((await createKb(kb)).status).toBe(201);
      await page.goto("/kbs");
      const card = page.locator(`[data-testid="kb-card"][data-kb="${kb}"]`);
      await addSource(card, async (form) => {
        await form.getByTestId("source-kind").selectOption("webdav");
        await expect(form.getByTestId("source-credential-note")).toContainText("becomes readable by this knowledge base's readers");
        await form.getByTestId("source-url").fill(`${dav.origin}/Team/`);
        await form.getByTestId("source-username").fill("kb-reader");
        await form.getByTestId("source-password").fill("dav-e2e-PASSWORD");
      });
      const source = card.locator('[data-testid="source"][data-kind="webdav"]');
      await expect(source.getByTestId("source-status")).toContainText("1 added");
      await expect(source).not.toContainText("dav-e2e-PASSWORD");

      await page.goto("/");
      const answer = await ask(page, "What are the quokkas of the island station fed at dusk?");
      await expect(answer).toContainText("saltbush");
      await answer.getByTestId("citation-chip").first().click();
      await page.getByTestId("citation-popover").getByTestId("open-in-document").click();
      await expect(page.getByTestId("document-title")).toContainText(`Quokka care ${RUN}`);
      const original = page.getByTestId("document-original").locator("a");
      expect(decodeURI((await original.getAttribute("href"))!)).toBe(`${dav.origin}/Team/手册/quokka-care.md`);
    } finally {
      await deleteKb(kb);
      await dav.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * Adds a source of `kind` on /kbs to the new knowledge base `kb`, waits for its first sync, asks `question` on the
 * chat page, expects `answered` in the answer and opens the cited document.
 */
async function addAskAndOpen(
  page: Page,
  kb: string,
  kind: "imap" | "mediawiki" | "notion",
  fill: (form: ReturnType<Page["locator"]>) => Promise<void>,
  added: string,
  question: string,
  answered: string,
) {
  expect((await createKb(kb)).status).toBe(201);
  await page.goto("/kbs");
  const card = page.locator(`[data-testid="kb-card"][data-kb="${kb}"]`);
  await addSource(card, async (form) => {
    await form.getByTestId("source-kind").selectOption(kind);
    await fill(form);
  });
  await expect(card.locator(`[data-testid="source"][data-kind="${kind}"]`).getByTestId("source-status")).toContainText(added);
  await page.goto("/");
  const answer = await ask(page, question);
  await expect(answer).toContainText(answered);
  await answer.getByTestId("citation-chip").first().click();
  await page.getByTestId("citation-popover").getByTestId("open-in-document").click();
}

test.describe("mailbox, wiki and Notion", () => {
  // Below 1024 px "Open in document" opens the document's own page, where its Original is.
  test.use({ locale: "en-US", viewport: { width: 1000, height: 800 } });

  test("a Notion workspace added on /kbs (its contract server) answers a question; the citation's Original is the page in Notion", async ({
    page,
  }) => {
    const kb = `src-notion-${RUN}`;
    const notion = await startNotionContract(`ntn_e2e_${RUN}_token`, SOURCE_PORTS.notion);
    const id = "44444444-4444-4444-8444-000000000001";
    try {
      notion.put({
        id,
        title: `Axolotl tank ${RUN}`,
        blocks: [block.h(1, "Water"), block.p("The axolotls of the north lab are kept in water at sixteen degrees, never warmer.")],
      });
      await addAskAndOpen(
        page,
        kb,
        "notion",
        async (form) => {
          await form.getByTestId("source-api-url").fill(notion.origin);
          await form.getByTestId("source-token").fill(notion.token);
        },
        "1 added",
        "At what temperature are the axolotls of the north lab kept?",
        "sixteen degrees",
      );
      await expect(page.getByTestId("document-title")).toContainText(`Axolotl tank ${RUN}`);
      const original = page.getByTestId("document-original").locator("a");
      await expect(original).toHaveAttribute("href", `https://www.notion.so/Axolotl-tank-${RUN}-${id.replace(/-/g, "")}`);
      expect(notion.requests.every((r) => !r.url.includes(notion.token))).toBe(true);
    } finally {
      await deleteKb(kb);
      await notion.close();
    }
  });

  test("an IMAP mailbox added on /kbs answers a question; the cited thread's Original is the IMAP URL of its first message", async ({
    page,
  }) => {
    test.skip(!!dovecotMissing(), dovecotMissing() ?? "");
    test.setTimeout(120_000);
    const kb = `src-imap-${RUN}`;
    const dir = mkdtempSync(path.join(os.tmpdir(), "e2e-imap-"));
    const imap = await startDovecot(dir, SOURCE_PORTS.imap);
    try {
      await imap.setPassword("kb-mail", "imap-e2e-PASSWORD");
      const client = new ImapFlow({
        host: "127.0.0.1",
        port: imap.port,
        secure: false,
        auth: { user: "kb-mail", pass: "imap-e2e-PASSWORD" },
        logger: false,
      });
      await client.connect();
      let uidValidity = "";
      try {
        const mail = (id: string, subject: string, body: string, replyTo?: string) =>
          [
            "From: Robin <robin@example.com>",
            "To: facilities@example.com",
            `Subject: ${subject}`,
            "Date: Mon, 02 Mar 2026 09:00:00 +0000",
            `Message-ID: ${id}`,
            ...(replyTo ? [`In-Reply-To: ${replyTo}`, `References: ${replyTo}`] : []),
            "Content-Type: text/plain; charset=UTF-8",
            "",
            body,
          ].join("\r\n");
        await client.append(
          "INBOX",
          mail("<q1@e2e>", `Pangolin enclosure key ${RUN}`, "Where is the spare key of the pangolin enclosure?"),
        );
        await client.append(
          "INBOX",
          mail(
            "<q2@e2e>",
            `Re: Pangolin enclosure key ${RUN}`,
            "The pangolin enclosure spare key hangs in the blue lockbox by the east gate.",
            "<q1@e2e>",
          ),
        );
        uidValidity = String((await client.mailboxOpen("INBOX")).uidValidity);
      } finally {
        await client.logout();
      }
      await addAskAndOpen(
        page,
        kb,
        "imap",
        async (form) => {
          await form.getByTestId("source-url").fill(`imap://127.0.0.1:${imap.port}/INBOX`);
          await form.getByTestId("source-username").fill("kb-mail");
          await form.getByTestId("source-password").fill("imap-e2e-PASSWORD");
        },
        "1 added",
        "Where does the pangolin enclosure spare key hang?",
        "blue lockbox",
      );
      await expect(page.getByTestId("document-title")).toContainText(`Pangolin enclosure key ${RUN}`);
      // A mail client opens an imap:// URL (RFC 5092); the page shows it as text, a link only for web addresses.
      const original = page.getByTestId("document-original");
      await expect(original).toHaveText(`imap://127.0.0.1:${imap.port}/INBOX;UIDVALIDITY=${uidValidity}/;UID=1`);
      await expect(original.locator("a")).toHaveCount(0);
    } finally {
      await deleteKb(kb);
      await imap.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a MediaWiki added on /kbs answers a question; the cited page's Original is its URL on the wiki", async ({ page }) => {
    test.skip(!!mediawikiMissing(), mediawikiMissing() ?? "");
    test.setTimeout(120_000);
    const kb = `src-wiki-${RUN}`;
    const dir = mkdtempSync(path.join(os.tmpdir(), "e2e-wiki-"));
    const wiki = await startMediaWiki(dir, SOURCE_PORTS.wiki);
    try {
      await wiki.edit(`Capybara pool ${RUN}`, "== Cleaning ==\nThe capybara pool is drained and refilled every second Thursday.");
      await addAskAndOpen(
        page,
        kb,
        "mediawiki",
        (form) => form.getByTestId("source-url").fill(wiki.api),
        "2 added",
        "When is the capybara pool drained and refilled?",
        "second Thursday",
      );
      await expect(page.getByTestId("document-title")).toContainText(`Capybara pool ${RUN}`);
      const original = page.getByTestId("document-original").locator("a");
      expect(decodeURI((await original.getAttribute("href"))!)).toBe(`${wiki.origin}/index.php/Capybara_pool_${RUN}`);
    } finally {
      await deleteKb(kb);
      await wiki.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

test.describe("Feishu", () => {
  test.use({ locale: "zh-CN", viewport: { width: 1000, height: 800 } });

  test("在 /kbs 添加飞书知识库，用中文提问，引用文档的“原文”是飞书中的文档", async ({ page }) => {
    const kb = `src-feishu-${RUN}`;
    const feishu = await startFeishuContract({ tenant: "https://kb-e2e.feishu.cn" });
    try {
      const node = feishu.wikiDoc("spcE2E", `dxRota${RUN}`, `值班制度 ${RUN}`, [
        { h: 1, text: "夜间值班" },
        { p: "夜间值班的工程师须在十分钟内响应告警，并在值班群登记处理结果。" },
        {
          table: [
            ["班次", "时间"],
            ["夜班", "22:00 至次日 08:00"],
          ],
        },
      ]);
      expect((await createKb(kb)).status).toBe(201);
      await page.goto("/kbs");
      const card = page.locator(`[data-testid="kb-card"][data-kb="${kb}"]`);
      await addSource(card, async (form) => {
        await form.getByTestId("source-kind").selectOption("feishu");
        await expect(form.getByTestId("source-credential-note")).toContainText("本知识库的读者可见");
        await form.getByTestId("source-api-url").fill(feishu.origin);
        await form.getByTestId("source-app-id").fill(feishu.appId);
        await form.getByTestId("source-password").fill(feishu.appSecret);
        await form.getByTestId("source-spaces").fill("spcE2E");
      });
      const source = card.locator('[data-testid="source"][data-kind="feishu"]');
      await expect(source.getByTestId("source-kind-label")).toHaveText("飞书 / Lark（知识库、云空间文件夹）");
      await expect(source.getByTestId("source-status")).toContainText("新增 1");
      await expect(source).not.toContainText(feishu.appSecret);

      await page.goto("/");
      const answer = await ask(page, "夜间值班的工程师须在多长时间内响应告警？");
      await expect(answer).toContainText("十分钟");
      await answer.getByTestId("citation-chip").first().click();
      await page.getByTestId("citation-popover").getByTestId("open-in-document").click();
      await expect(page.getByTestId("document-title")).toContainText(`值班制度 ${RUN}`);
      const original = page.getByTestId("document-original").locator("a");
      expect(await original.getAttribute("href")).toBe(`${feishu.tenant}/wiki/${node}`);
    } finally {
      await deleteKb(kb);
      await feishu.close();
    }
  });
});
