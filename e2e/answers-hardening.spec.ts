/**
 * Every answer carries the security headers, the browser runs without
 * a CSP violation (zod jitless), and the audit log sees refusals — on the built app through server.mjs: the
 * offline server (this machine is the owner there) and the secured one (REQUIRE_TOKEN, ADMIN_TOKEN).
 */
import type { Page } from "@playwright/test";
import { ask } from "./helpers/chat";
import { expect, PORTS, SECURE, test } from "./helpers/servers";

const APP = `http://127.0.0.1:${PORTS.offline}`;
const SECURED = `http://127.0.0.1:${PORTS.secure}`;
const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const LIST = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });

function expectSecurityHeaders(res: Response, what: string) {
  expect(res.headers.get("x-content-type-options"), what).toBe("nosniff");
  expect(res.headers.get("x-frame-options"), what).toBe("DENY");
  expect(res.headers.get("referrer-policy"), what).toBe("same-origin");
  expect(res.headers.get("content-security-policy"), what).toContain("frame-ancestors 'none'");
}

test("MCP answers (served by server.mjs, not Next.js) carry X-Frame-Options and Referrer-Policy", async () => {
  const ok = await fetch(`${APP}/api/mcp`, { method: "POST", headers: MCP_HEADERS, body: LIST });
  expect(ok.status).toBe(200);
  expectSecurityHeaders(ok, "tools/list");
  const refused = await fetch(`${SECURED}/api/mcp/default`, { method: "POST", headers: MCP_HEADERS, body: LIST });
  expect(refused.status).toBe(401);
  expectSecurityHeaders(refused, "401");
});

test("a malformed path encoding gets 400 with the security headers, not a bare 500", async () => {
  for (const p of ["/api/kbs/%C0%AF", "/documents/%ZZ", "/api/documents/%E0%A4%A", "/api/mcp/%ZZ", "/%C0%AF"]) {
    const res = await fetch(`${APP}${p}`);
    expect(res.status, p).toBe(400);
    expectSecurityHeaders(res, p);
    expect((await res.json()).error.code, p).toBe("bad_request");
  }
});

/** Collects the page's CSP violations (the DOM event: Chrome reports eval refusals there, not always on the console). */
async function watchViolations(page: Page): Promise<() => Promise<string[]>> {
  await page.addInitScript(() => {
    const w = window as unknown as { __violations: string[] };
    w.__violations = [];
    document.addEventListener("securitypolicyviolation", (e) => w.__violations.push(`${e.effectiveDirective} ${e.blockedURI}`));
  });
  const consoleViolations: string[] = [];
  page.on("console", (m) => {
    if (/Content Security Policy|unsafe-eval|Refused to/i.test(m.text())) consoleViolations.push(m.text());
  });
  return async () => [...consoleViolations, ...(await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations))];
}

test("the chat streams an answer with no CSP violation: zod runs jitless in the browser", async ({ page }) => {
  const violations = await watchViolations(page);
  await page.goto(APP);
  const answer = await ask(page, "What does this knowledge base say about retrieval?");
  await expect(answer).not.toBeEmpty();
  await page.goto(`${APP}/kbs`);
  await page.waitForLoadState("networkidle");
  expect(await violations()).toEqual([]);
});

test("the audit log records 401s (wrong admin secret, wrong MCP token) with the address, and the KB a refusal named", async () => {
  const stamp = Date.now().toString(36);
  const kb = `audit-${stamp}`;
  const admin = { authorization: `Bearer ${SECURE.adminToken}` };
  const wrong = { authorization: `Bearer wrong-secret-${stamp}` };
  expect((await fetch(`${SECURED}/api/users`, { headers: wrong })).status).toBe(401);
  expect((await fetch(`${SECURED}/api/kbs/${kb}`, { headers: wrong })).status).toBe(401);
  const mcp = await fetch(`${SECURED}/api/mcp/${kb}`, {
    method: "POST",
    headers: { ...MCP_HEADERS, authorization: `Bearer kbt_wrong${stamp}` },
    body: LIST,
  });
  expect(mcp.status).toBe(401);

  type Event = { target: string | null; kb: string | null; detail: string | null; address: string };
  let events: Event[] = [];
  // The log is written in the background: poll until this test's three refusals are in.
  await expect
    .poll(async () => {
      const res = await fetch(`${SECURED}/api/audit?action=access_denied&limit=500`, { headers: admin });
      events = ((await res.json()).events ?? []) as Event[];
      return events.filter((e) => e.target?.includes(kb) || (e.target === "GET /api/users" && e.detail?.startsWith("401"))).length;
    })
    .toBeGreaterThanOrEqual(3);
  const users = events.find((e) => e.target === "GET /api/users" && e.detail?.startsWith("401"));
  expect(users, JSON.stringify(events.slice(0, 5))).toBeTruthy();
  expect(users!.address).toBe("127.0.0.1");
  const named = events.find((e) => e.target === `GET /api/kbs/${kb}` && e.detail?.startsWith("401"));
  expect(named?.kb).toBe(kb);
  expect(named?.address).toBe("127.0.0.1");
  const token = events.find((e) => e.target === `POST /api/mcp/${kb}` && e.detail?.startsWith("401"));
  expect(token?.kb).toBe(kb);
  expect(token?.address).toBe("127.0.0.1");
});
