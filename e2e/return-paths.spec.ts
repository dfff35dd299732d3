/**
 * Every return parameter of the app, tried in a real browser with every classic open-redirect payload
 * (lib/auth/open-redirect-payloads.ts): the document page's "Back to chat" (`from`), sign-in (`next`, followed
 * by the browser's script) and the owner link (`next`, a server redirect). Following each must stay on the
 * app's origin: no request leaves for another host, no script URL runs.
 */
import type { BrowserContext, Page } from "@playwright/test";
import { OPEN_REDIRECT_PAYLOADS } from "@/lib/auth/open-redirect-payloads";
import { requestOwnerLinkToken } from "@/lib/auth/owner-link-tokens";
import { getConfig } from "@/lib/config";
import { expect, PORTS, SECURE, test, WORKER_DATA_DIR } from "./helpers/servers";

const APP = `http://127.0.0.1:${PORTS.offline}`;
const SECURED = `http://127.0.0.1:${PORTS.secure}`;
/** The offline app's data folder (playwright.config.ts): `npm run owner-link` run with it makes that app's links. */
const OFFLINE_DATA = `${WORKER_DATA_DIR}/offline`;

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

/** The page's URL once it has left `pathname`, with what escaped on the way. */
async function landing(page: Page, leaving: string): Promise<URL> {
  await page.waitForURL((u) => u.pathname !== leaving, { timeout: 20_000 });
  await page.waitForLoadState("domcontentloaded");
  return new URL(page.url());
}

test.describe.configure({ mode: "serial" });

test("the document page's Back to chat (`from`) stays on the site for every payload", async ({ browser, request }) => {
  test.setTimeout(600_000);
  const { documents } = await (await request.get(`${APP}/api/documents`)).json();
  expect(documents.length).toBeGreaterThan(0);
  const docPath = `/documents/${encodeURIComponent(documents[0].id)}`;
  const context: BrowserContext = await browser.newContext();
  for (const payload of OPEN_REDIRECT_PAYLOADS) {
    const page = await context.newPage();
    const escapes = watchEscapes(page);
    await page.goto(`${APP}${docPath}?from=${payload}`);
    const back = page.getByTestId("back-to-chat");
    const href = (await back.getAttribute("href")) ?? "";
    expect(new URL(href, APP).origin, `${payload}: href ${JSON.stringify(href)}`).toBe(APP);
    await back.click();
    const at = await landing(page, docPath);
    expect(at.origin, payload).toBe(APP);
    expect(escapes, payload).toEqual([]);
    await page.close();
  }
  // A conversation's own address is still where it goes back to.
  const page = await context.newPage();
  await page.goto(`${APP}${docPath}?from=${encodeURIComponent("/?c=abc#m-1")}`);
  await expect(page.getByTestId("back-to-chat")).toHaveAttribute("href", "/?c=abc#m-1");
  await context.close();
});

test("sign-in (`next`) never sends the browser off the site, for every payload", async ({ browser }) => {
  test.setTimeout(600_000);
  const signIn = async (next: string) => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const escapes = watchEscapes(page);
    await page.goto(`${SECURED}/signin?next=${next}`);
    await page.getByText("Admin secret (recovery)").click();
    await page.getByTestId("admin-token").fill(SECURE.adminToken);
    await page.getByTestId("admin-token").press("Enter");
    const at = await landing(page, "/signin");
    await context.close();
    return { at, escapes };
  };
  for (const payload of OPEN_REDIRECT_PAYLOADS) {
    const { at, escapes } = await signIn(payload);
    expect(at.origin, payload).toBe(SECURED);
    expect(escapes, payload).toEqual([]);
  }
  // A plain path of the site is still where sign-in goes.
  const { at } = await signIn(encodeURIComponent("/documents?kb=default"));
  expect(at.href).toBe(`${SECURED}/documents?kb=default`);
});

test("the owner link's `next` (a server redirect) stays on the site for every payload", async ({ browser }) => {
  test.setTimeout(600_000);
  const open = async (next: string) => {
    // Each link signs in once: a new one for every payload, as `npm run owner-link` makes it.
    const token = requestOwnerLinkToken({ ...getConfig(), dataDir: OFFLINE_DATA });
    const context = await browser.newContext();
    const page = await context.newPage();
    const escapes = watchEscapes(page);
    await page.goto(`${APP}/api/session/owner?token=${token}&next=${next}`);
    const at = await landing(page, "/api/session/owner");
    await context.close();
    return { at, escapes };
  };
  for (const payload of OPEN_REDIRECT_PAYLOADS) {
    const { at, escapes } = await open(payload);
    expect(at.origin, payload).toBe(APP);
    expect(escapes, payload).toEqual([]);
  }
  const { at } = await open(encodeURIComponent("/kbs?x=1"));
  expect(at.href).toBe(`${APP}/kbs?x=1`);
});
