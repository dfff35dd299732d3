/**
 * Every return parameter of the app, tried in a real browser with every classic open-redirect payload
 * (lib/auth/open-redirect-payloads.ts): the document page's "Back to chat" (`from`), sign-in (`next`, followed
 * by the browser's script) and the owner link (`next`, a server redirect). Following each must stay on the
 * app's origin: no request leaves for another host, no script URL runs.
 *
 * Where the browser lands is what is tested, not the page it lands on: a landing on the app is answered with a
 * stub page (stubLandings), or, behind a server redirect, loads its document alone (bareLandings), so that a payload
 * costs the page it starts from and not a render of the chat. One page serves all payloads of a test, its cookies
 * cleared between them.
 */
import type { Page, Route } from "@playwright/test";
import { OPEN_REDIRECT_PAYLOADS } from "@/lib/auth/open-redirect-payloads";
import { requestOwnerLinkToken } from "@/lib/auth/owner-link-tokens";
import { getConfig } from "@/lib/config";
import { expect, PORTS, SECURE, test, WORKER_DATA_DIR } from "./helpers/servers";

const APP = `http://127.0.0.1:${PORTS.offline}`;
const SECURED = `http://127.0.0.1:${PORTS.secure}`;
/** The offline app's data folder (playwright.config.ts): `npm run owner-link` run with it makes that app's links. */
const OFFLINE_DATA = `${WORKER_DATA_DIR}/offline`;
const STUB = "<!doctype html><title>landed</title><p>landed</p>";

/** Watches `page` for what an open redirect would do: a request to another host, a dialog from a script URL. */
function watchEscapes(page: Page): string[] {
  const escapes: string[] = [];
  page.on("request", (r) => {
    const url = new URL(r.url());
    if (/^https?:$/.test(url.protocol) && url.hostname !== "127.0.0.1") escapes.push(`request ${r.url()}`);
  });
  page.on("dialog", (d) => {
    escapes.push(`dialog ${d.message()}`);
    void d.dismiss();
  });
  return escapes;
}

/**
 * Answers every page load of `origin` outside `start` (the page a payload starts from) with a stub page. A Next.js
 * client navigation first asks for the landing's RSC payload (header `RSC: 1`): answered with HTML, the router
 * loads the address as a page, which lands on the stub. Requests to other hosts are not touched.
 */
async function stubLandings(page: Page, origin: string, start: RegExp): Promise<void> {
  await page.route(
    (url) => url.origin === origin && !start.test(url.pathname) && !url.pathname.startsWith("/_next/"),
    (route: Route) => {
      const request = route.request();
      if (request.isNavigationRequest() || request.headers().rsc === "1") {
        return route.fulfill({ contentType: "text/html", body: STUB });
      }
      return route.fallback();
    },
  );
}

/**
 * Lets a page of `origin` outside `start` load its document and nothing else (scripts, styles, data requests are
 * refused). For a server redirect's landing: Playwright routes only the first request of a redirect chain, so
 * where a redirect goes cannot be stubbed.
 */
async function bareLandings(page: Page, origin: string, start: RegExp): Promise<void> {
  await page.route(
    (url) => url.origin === origin && !start.test(url.pathname),
    (route: Route) => (route.request().isNavigationRequest() ? route.fallback() : route.abort()),
  );
}

/** The page's URL once it has left `leaving` and shows what it landed on. */
async function landing(page: Page, leaving: string): Promise<URL> {
  await page.waitForURL((u) => u.pathname !== leaving, { timeout: 20_000 });
  await page.waitForLoadState("domcontentloaded");
  return new URL(page.url());
}

test.describe.configure({ mode: "serial" });

test("the document page's Back to chat (`from`) stays on the site for every payload", async ({ page, request }) => {
  test.setTimeout(300_000);
  const { documents } = await (await request.get(`${APP}/api/documents`)).json();
  expect(documents.length).toBeGreaterThan(0);
  const docPath = `/documents/${encodeURIComponent(documents[0].id)}`;
  await stubLandings(page, APP, /^\/documents\//);
  const escapes = watchEscapes(page);
  for (const payload of OPEN_REDIRECT_PAYLOADS) {
    await page.goto(`${APP}${docPath}?from=${payload}`);
    const back = page.getByTestId("back-to-chat");
    const href = (await back.getAttribute("href")) ?? "";
    expect(new URL(href, APP).origin, `${payload}: href ${JSON.stringify(href)}`).toBe(APP);
    await back.click();
    const at = await landing(page, docPath);
    expect(at.origin, payload).toBe(APP);
    expect(escapes, payload).toEqual([]);
  }
  // A conversation's own address is still where it goes back to.
  await page.goto(`${APP}${docPath}?from=${encodeURIComponent("/?c=abc#m-1")}`);
  await expect(page.getByTestId("back-to-chat")).toHaveAttribute("href", "/?c=abc#m-1");
});

test("sign-in (`next`) never sends the browser off the site, for every payload", async ({ page }) => {
  test.setTimeout(300_000);
  await stubLandings(page, SECURED, /^\/signin$/);
  const escapes = watchEscapes(page);
  const signIn = async (next: string) => {
    await page.context().clearCookies();
    await page.goto(`${SECURED}/signin?next=${next}`);
    await page.getByText("Admin secret (recovery)").click();
    await page.getByTestId("admin-token").fill(SECURE.adminToken);
    await page.getByTestId("admin-token").press("Enter");
    return landing(page, "/signin");
  };
  for (const payload of OPEN_REDIRECT_PAYLOADS) {
    const at = await signIn(payload);
    expect(at.origin, payload).toBe(SECURED);
    expect(escapes, payload).toEqual([]);
  }
  // A plain path of the site is still where sign-in goes.
  const at = await signIn(encodeURIComponent("/documents?kb=default"));
  expect(at.href).toBe(`${SECURED}/documents?kb=default`);
});

test("the owner link's `next` (a server redirect) stays on the site for every payload", async ({ page }) => {
  test.setTimeout(300_000);
  await bareLandings(page, APP, /^\/api\/session\/owner$/);
  const escapes = watchEscapes(page);
  const open = async (next: string) => {
    // Each link signs in once: a new one for every payload, as `npm run owner-link` makes it.
    const token = requestOwnerLinkToken({ ...getConfig(), dataDir: OFFLINE_DATA });
    await page.context().clearCookies();
    await page.goto(`${APP}/api/session/owner?token=${token}&next=${next}`);
    return landing(page, "/api/session/owner");
  };
  for (const payload of OPEN_REDIRECT_PAYLOADS) {
    const at = await open(payload);
    expect(at.origin, payload).toBe(APP);
    expect(escapes, payload).toEqual([]);
  }
  const at = await open(encodeURIComponent("/kbs?x=1"));
  expect(at.href).toBe(`${APP}/kbs?x=1`);
});
