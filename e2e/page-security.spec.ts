/**
 * What a page may do in the browser, on the built app (offline server): no page can be framed by another
 * origin (a page the test serves on another port frames every page and sees each refused), every page runs
 * under a real Content-Security-Policy without a violation, and a document's remote images are never
 * fetched — neither on the document page nor in the chat's citation view — nor is an OAuth client's logo.
 * "Fetched" is checked twice: the page's request log, and the loopback server the images point at.
 */
import http from "node:http";
import type { Page } from "@playwright/test";
import { ask } from "./helpers/chat";
import { expect, PORTS, test } from "./helpers/servers";

const APP = `http://127.0.0.1:${PORTS.offline}`;
const FRAMER_PORT = PORTS.offline + 70;
const TRACKER_PORT = PORTS.offline + 71;
const TRACKER = `127.0.0.1:${TRACKER_PORT}`;
const KB = `e2e-pixels-${Date.now().toString(36)}`;
const DOC = [
  "# Quorvane pixel ledger",
  "",
  `The quorvane ledger lists every brass sprocket ![pixel](http://${TRACKER}/md.png) in the north annex.`,
  "",
  `<img src="http://${TRACKER}/raw.png"> The quorvane ledger is kept by the annex clerk.`,
  "",
].join("\n");

let framer: http.Server;
let tracker: http.Server;
const trackerHits: string[] = [];
let docId = "";

/** The pages of the app, as a browser opens them. */
const pages = () => [
  "/",
  "/documents",
  `/documents/${docId}`,
  "/kbs",
  "/people",
  "/audit",
  "/faq",
  "/signin",
  "/invite",
  "/oauth/authorize",
];

function listen(server: http.Server, port: number) {
  return new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
}

test.beforeAll(async () => {
  tracker = http.createServer((req, res) => {
    trackerHits.push(req.url ?? "");
    res.writeHead(200, { "content-type": "image/png" }).end();
  });
  await listen(tracker, TRACKER_PORT);
  framer = http.createServer((req, res) => {
    const src = new URL(req.url ?? "/", "http://x").searchParams.get("src") ?? "/";
    res.writeHead(200, { "content-type": "text/html" });
    res.end(`<!doctype html><title>framer</title><iframe id="f" src="${APP}${src}" width="800" height="600"></iframe>`);
  });
  await listen(framer, FRAMER_PORT);
  const fd = new FormData();
  fd.append("files", new File([DOC], "quorvane.md"));
  fd.append("kb", KB);
  const up = await fetch(`${APP}/api/documents`, { method: "POST", body: fd });
  expect(up.status).toBe(200);
  docId = ((await up.json()) as { results: { documentId: string }[] }).results[0].documentId;
});

test.afterAll(async () => {
  await fetch(`${APP}/api/kbs/${KB}`, { method: "DELETE" }).catch(() => {});
  await new Promise((r) => framer?.close(r));
  await new Promise((r) => tracker?.close(r));
});

/** Console errors and uncaught page errors, and every request the page makes. */
function watch(page: Page) {
  const errors: string[] = [];
  const requests: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("request", (r) => requests.push(r.url()));
  return { errors, requests };
}

test("every page and API answer carries the security headers", async () => {
  for (const p of pages()) {
    const res = await fetch(`${APP}${p}`);
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp, p).toContain("frame-ancestors 'none'");
    expect(csp, p).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' /);
    expect(csp, p).toContain("img-src 'self' data:");
    expect(csp, p).toContain("connect-src 'self'");
    expect(res.headers.get("x-content-type-options"), p).toBe("nosniff");
    expect(res.headers.get("referrer-policy"), p).toBe("same-origin");
  }
  const a = await fetch(`${APP}/`);
  const b = await fetch(`${APP}/`);
  expect(a.headers.get("content-security-policy")).not.toBe(b.headers.get("content-security-policy"));
  // API answers, MCP's included (server.mjs answers it without Next.js).
  for (const [p, init] of [
    ["/api/health", {}],
    ["/api/kbs", {}],
    [
      "/api/mcp",
      { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{}" },
    ],
  ] as const) {
    const res = await fetch(`${APP}${p}`, init);
    expect(res.headers.get("x-content-type-options"), p).toBe("nosniff");
    expect(res.headers.get("content-security-policy"), p).toContain("frame-ancestors 'none'");
  }
});

test("a page on another origin cannot frame any page of the app", async ({ page }) => {
  for (const p of pages()) {
    await page.goto(`http://127.0.0.1:${FRAMER_PORT}/?src=${encodeURIComponent(p)}`);
    const frame = await page
      .locator("#f")
      .elementHandle()
      .then((el) => el?.contentFrame());
    expect(frame, p).toBeTruthy();
    // A refused frame holds the browser's error page, none of the app's.
    await expect.poll(() => frame!.url(), p).not.toContain(APP);
    expect(await frame!.locator("[data-testid]").count(), p).toBe(0);
  }
});

test("the main pages run under the policy without a violation", async ({ page }) => {
  const { errors } = watch(page);
  for (const p of pages()) {
    await page.goto(`${APP}${p}`);
    await page.waitForLoadState("networkidle");
    // Next.js's inline scripts and its chunks ran: they carry the nonce.
    await expect.poll(() => page.evaluate(() => typeof (window as { next?: { version?: string } }).next?.version), p).toBe("string");
  }
  // The chat works end to end under the policy (streaming over connect-src 'self').
  await page.goto(APP);
  const answer = await ask(page, "What does the quorvane ledger list?");
  await expect(answer).toContainText(/quorvane|sprocket/i);
  expect(errors.filter((e) => /Content Security Policy|Refused to/i.test(e))).toEqual([]);
});

test("a document's remote images are shown as links to their host, and never fetched", async ({ page }) => {
  const { requests } = watch(page);
  await page.goto(`${APP}/documents/${docId}`);
  const body = page.getByTestId("document-body");
  await expect(body).toContainText("brass sprocket");
  const link = body.getByTestId("image-link");
  await expect(link).toHaveText(`🖼 pixel (${TRACKER})`);
  await expect(link).toHaveAttribute("href", `http://${TRACKER}/md.png`);
  await expect(body.locator("img")).toHaveCount(0);

  // The same document in the chat's citation view.
  await page.goto(APP);
  const answer = await ask(page, "What does the quorvane ledger list in the north annex?");
  await answer.getByTestId("citation-chip").first().click();
  await page.getByTestId("citation-popover").getByTestId("open-in-document").click();
  const cited = page.getByTestId("document-body");
  await expect(cited).toContainText("brass sprocket");
  await expect(cited.getByTestId("image-link").first()).toContainText(TRACKER);
  await page.waitForLoadState("networkidle");

  expect(requests.filter((u) => u.includes(TRACKER))).toEqual([]);
  expect(trackerHits).toEqual([]);
});

test("the OAuth consent page does not load a client's logo from the web", async ({ page }) => {
  const redirect = `http://127.0.0.1:${TRACKER_PORT}/callback`;
  const reg = await fetch(`${APP}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "Logo Client",
      redirect_uris: [redirect],
      token_endpoint_auth_method: "none",
      logo_uri: `https://${TRACKER}/logo.png`,
    }),
  });
  expect(reg.status).toBe(201);
  const { client_id } = (await reg.json()) as { client_id: string };
  const q = new URLSearchParams({
    response_type: "code",
    client_id,
    redirect_uri: redirect,
    code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    code_challenge_method: "S256",
    state: "s",
    scope: "kb:read",
    resource: `${APP}/api/mcp`,
  });
  const { requests, errors } = watch(page);
  await page.goto(`${APP}/oauth/authorize?${q}`);
  await expect(page.getByText("Logo Client")).toBeVisible();
  await expect(page.locator("main img")).toHaveCount(0);
  await page.waitForLoadState("networkidle");
  expect(requests.filter((u) => u.includes(TRACKER))).toEqual([]);
  expect(trackerHits).toEqual([]);
  expect(errors.filter((e) => /Content Security Policy|Refused to/i.test(e))).toEqual([]);
});
