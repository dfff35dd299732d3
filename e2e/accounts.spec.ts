/**
 * A team, not one admin: accounts, roles and per-knowledge-base access, from a remote peer. The app and a real
 * OpenID provider (node-oidc-provider, e2e/fixtures/oidc-provider.mjs) run in a network namespace this spec
 * makes; Debian Chromium and curl run in another one (a remote address), so every request is remote and needs
 * a sign-in. Knowledge bases `hr` (annual leave: 25 days) and `finance` (travel budget code FIN-7731) beside the
 * sample knowledge in `default` (annual leave: 20 days).
 *
 * An invited reader of hr joins and chats over hr only, sees no upload control and gets 403 from the upload
 * API; an editor of hr uploads to hr and not to finance; conversations are private; the reader's token and
 * OAuth grant reach hr only, and lose it with the reader's grant on the next request; single sign-on joins
 * people of the allowed domain as readers, an admin group as admins, and refuses another domain; cookies,
 * cross-origin posts, CSRF and the lockout; the audit log records each action with its actor, and its page
 * filters it.
 */
import type { ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Browser, BrowserContext, Page } from "@playwright/test";
import {
  type CurlOptions,
  type CurlReply,
  curlIn,
  launchChromiumIn,
  makeNetnsPair,
  type NetnsPair,
  startChild,
  stopAll,
  type Where,
} from "./helpers/netns";
import { expect, test, WORKER_DATA_DIR } from "./helpers/servers";

const DATA = path.resolve(WORKER_DATA_DIR, `accounts-${Date.now().toString(36)}`);
const ADMIN = "accounts-admin-secret";
const PASSWORD = "a long team password";
const APP_PORT = 3000; // inside the server's namespace
const OIDC_PORT = 4000;
/** How old a confirmation by the provider may get before it is asked again: short, so every request of the spec runs beside re-checks. */
const RECHECK_SECONDS = 2;
const REDIRECT = "http://127.0.0.1:3999/callback"; // never loaded: the browser hands the code over
const children: ChildProcess[] = [];
let output = "";
let net: NetnsPair;
let browser: Browser;
const app = () => `http://${net.addr.srv}:${APP_PORT}`;
const links: Record<string, string> = {};
const pages: Record<string, Page> = {};

const start = (cmd: string[], env: Record<string, string> = {}) => startChild(children, cmd, env, { onOutput: (s) => (output += s) });

/** The owner's session on this machine (the link the app printed at start): its Cookie header and CSRF token. */
let owner: { cookie: string; csrf: string } | null = null;

/** curl in a namespace: "srv" on the app's loopback as the owner (signed in with the owner link), "cli" from the remote peer. */
function curl(where: Where, method: string, pathname: string, opts: Omit<CurlOptions, "headerFile"> = {}): CurlReply {
  const base = where === "srv" ? `http://127.0.0.1:${APP_PORT}` : app();
  const headers = where === "srv" && owner ? { cookie: owner.cookie, "x-csrf-token": owner.csrf, ...opts.headers } : opts.headers;
  return curlIn(net, where, method, `${base}${pathname}`, { ...opts, headers, headerFile: path.join(DATA, "last-headers.txt") });
}

const ownerLinks = () => [...output.matchAll(/http:\/\/127\.0\.0\.1:\d+(\/api\/session\/owner\?token=[\w-]+)/g)];

/** Opens the last owner link the app printed (a session stays valid across the app's restarts: it is stored).
 * /api/health answers as soon as the app is prepared; the link is printed a moment later, once MCP is registered. */
async function signInOwner() {
  await expect.poll(() => ownerLinks().length, { message: output, timeout: 60_000 }).toBeGreaterThan(0);
  const links = ownerLinks();
  const opened = curl("srv", "GET", links[links.length - 1][1]);
  expect(opened.status).toBe(303);
  const value = (name: string) => new RegExp(`^set-cookie: ${name}=([^;]+)`, "im").exec(opened.headers)?.[1] ?? "";
  owner = { cookie: `kb_session=${value("kb_session")}; kb_csrf=${value("kb_csrf")}`, csrf: value("kb_csrf") };
  expect(owner.csrf).not.toBe("");
}

/** One MCP JSON-RPC call from the remote peer with a bearer token. */
function mcp(token: string, method: string, params: unknown, endpoint = "/api/mcp"): CurlReply {
  return curl("cli", "POST", endpoint, { headers: { authorization: `Bearer ${token}` }, json: { jsonrpc: "2.0", id: 1, method, params } });
}
const searchText = (r: CurlReply) => JSON.stringify(r.json());

/** A fetch made by the page itself (in the client namespace, with its cookies and CSRF token). */
function pageFetch(
  page: Page,
  url: string,
  init: { method?: string; json?: unknown; upload?: { kb: string; name: string; text: string } } = {},
) {
  return page.evaluate(
    async ({ url, init }) => {
      const csrf = /(?:^|;\s*)kb_csrf=([^;]+)/.exec(document.cookie)?.[1] ?? "";
      const headers: Record<string, string> = { "x-csrf-token": csrf };
      let body: BodyInit | undefined;
      if (init.json !== undefined) {
        headers["content-type"] = "application/json";
        body = JSON.stringify(init.json);
      }
      if (init.upload) {
        const fd = new FormData();
        fd.append("kb", init.upload.kb);
        fd.append("files", new File([init.upload.text], init.upload.name, { type: "text/markdown" }));
        body = fd;
      }
      const res = await fetch(url, { method: init.method ?? "GET", headers, body });
      return { status: res.status, body: await res.text() };
    },
    { url, init },
  );
}

async function ask(page: Page, question: string) {
  const input = page.getByTestId("chat-input");
  await input.fill(question);
  await input.press("Enter");
  const answer = page.getByTestId("assistant-message").last();
  await expect(answer.getByTestId("copy-answer")).toBeVisible({ timeout: 60_000 });
  return answer.getByTestId("answer").innerText();
}

async function join(context: BrowserContext, link: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(link);
  await expect(page.getByTestId("join-intro")).toBeVisible();
  await page.getByTestId("join-password").fill(PASSWORD);
  await page.getByTestId("join-submit").click();
  await page.waitForURL(`${app()}/`);
  return page;
}

async function ssoSignIn(login: string): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto(`${app()}/signin`);
  await page.getByTestId("signin-sso").click();
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill("anything");
  await page.locator('button[type="submit"]').click();
  // The provider asks this new browser for consent to the app.
  await page.getByRole("button", { name: "Continue" }).click();
  return page;
}

test.describe.configure({ mode: "serial" });
test.setTimeout(240_000);

test.beforeAll(async () => {
  test.setTimeout(400_000);
  net = makeNetnsPair("kba", 11);
  mkdirSync(DATA, { recursive: true });
  const issuer = `http://${net.addr.srv}:${OIDC_PORT}`;
  start([
    ...net.inNs("srv"),
    process.execPath,
    "e2e/fixtures/oidc-provider.mjs",
    String(OIDC_PORT),
    issuer,
    "kb-app",
    "kb-app-secret",
    `${app()}/api/auth/oidc/callback`,
  ]);
  const base = { DATA_DIR: path.join(DATA, "app"), KNOWLEDGE_DIR: "knowledge", ADMIN_TOKEN: ADMIN, PUBLIC_URL: app() };
  const startApp = async (env: Record<string, string>) => {
    const child = start([...net.inNs("srv"), process.execPath, "server.mjs", "-p", String(APP_PORT), "-H", "0.0.0.0"], { ...base, ...env });
    for (let i = 0; ; i++) {
      if (curl("srv", "GET", "/api/health").status === 200) {
        if (!owner) await signInOwner();
        return child;
      }
      if (i > 240) throw new Error(`the app did not become healthy:\n${output}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  };
  // OIDC_DEFAULT_KBS must name knowledge bases that exist at start-up: first the app without single sign-on makes hr.
  const first = await startApp({});
  expect(curl("srv", "POST", "/api/kbs", { json: { name: "hr", title: "Human Resources" } }).status).toBe(201);
  expect(curl("srv", "POST", "/api/kbs", { json: { name: "finance", title: "Finance" } }).status).toBe(201);
  const docs = {
    hr: "# Leave policy\n\n## Annual leave\n\nEvery employee of the team gets 25 days of annual leave per year.\n",
    finance: "# Travel budget\n\n## Budget code\n\nThe travel budget code is FIN-7731 for every trip.\n",
  };
  for (const [kb, text] of Object.entries(docs)) {
    const file = path.join(DATA, `${kb}.md`);
    writeFileSync(file, text);
    expect(curl("srv", "POST", "/api/documents", { fields: { files: `@${file}`, kb } }).status).toBe(200);
  }
  // A read of the audit log writes what is pending (the uploads above) before the first app stops.
  expect(curl("srv", "GET", "/api/audit?limit=1").status).toBe(200);
  const exited = new Promise((resolve) => first.once("exit", resolve));
  process.kill(-first.pid!, "SIGTERM");
  await exited;
  await startApp({
    OIDC_ISSUER: issuer,
    OIDC_CLIENT_ID: "kb-app",
    OIDC_CLIENT_SECRET: "kb-app-secret",
    OIDC_NAME: "Team ID",
    OIDC_ALLOW_INSECURE_ISSUER: "1",
    OIDC_ALLOWED_DOMAINS: "example.com",
    OIDC_GROUP_ROLES: "kb-admins=admin",
    OIDC_DEFAULT_KBS: "hr",
    OIDC_RECHECK_SECONDS: String(RECHECK_SECONDS),
  });
  for (const [who, role] of [
    ["reader", "reader"],
    ["editor", "editor"],
  ] as const) {
    const r = curl("srv", "POST", "/api/invites", { json: { email: `${who}@team.test`, role, kbs: ["hr"] } });
    expect(r.status, r.body).toBe(201);
    links[who] = r.json().link;
    expect(links[who]).toMatch(new RegExp(`^${app()}/invite#kbi_`));
  }
  // Chromium in the client namespace (Playwright talks to it over a pipe): a remote peer of the app.
  browser = await launchChromiumIn(net, "cli", DATA);
});

test.afterAll(async () => {
  await browser?.close();
  stopAll(children, net);
});

test("a remote browser must sign in; an invited reader chats over hr only, with no upload control and 403 on the upload API", async () => {
  const anonymous = await (await browser.newContext()).newPage();
  await anonymous.goto(`${app()}/documents`);
  await anonymous.waitForURL(/\/signin\?next=%2Fdocuments/);
  await anonymous.context().close();

  const page = await join(await browser.newContext(), links.reader);
  pages.reader = page;
  const leave = await ask(page, "How many days of annual leave do I get?");
  expect(leave).toContain("25 days");
  expect(leave).not.toContain("20 days"); // the sample knowledge in `default` is not the reader's
  expect(await ask(page, "What is the travel budget code?")).not.toContain("FIN-7731");

  await page.goto(`${app()}/documents`);
  await expect(page.getByTestId("document-row")).toHaveCount(1);
  await expect(page.getByTestId("document-row")).toContainText("Leave policy");
  await expect(page.getByTestId("add-documents")).toHaveCount(0);
  await expect(page.getByTestId("document-delete")).toHaveCount(0);
  await page.goto(`${app()}/kbs`);
  await expect(page.getByTestId("kb-card")).toHaveCount(1);
  await expect(page.getByTestId("create-kb-form")).toHaveCount(0);
  await expect(page.getByTestId("people-link")).toHaveCount(0);

  const upload = await pageFetch(page, "/api/documents", { method: "POST", upload: { kb: "hr", name: "x.md", text: "# X\n\nhello" } });
  expect(upload.status).toBe(403);
  expect((await pageFetch(page, "/api/users")).status).toBe(403);
  expect((await pageFetch(page, "/api/audit")).status).toBe(403);
  expect((await pageFetch(page, "/api/documents?kb=finance")).status).toBe(403);
});

test("an editor of hr uploads to hr, and not to finance", async () => {
  const page = await join(await browser.newContext(), links.editor);
  pages.editor = page;
  await page.goto(`${app()}/documents`);
  await expect(page.getByTestId("upload-kb")).toHaveValue("hr");
  await page.getByTestId("add-documents-input").setInputFiles({
    name: "holidays.md",
    mimeType: "text/markdown",
    buffer: Buffer.from("# Public holidays\n\nThe office is closed on the first Monday of May.\n"),
  });
  await expect(page.getByTestId("upload-item").filter({ hasText: "holidays.md" })).toHaveAttribute("data-status", "done");
  await expect(page.getByTestId("document-row").filter({ hasText: "Public holidays" })).toBeVisible();
  const denied = await pageFetch(page, "/api/documents", { method: "POST", upload: { kb: "finance", name: "f.md", text: "# F\n\nno" } });
  expect(denied.status).toBe(403);
  expect(curl("srv", "GET", "/api/documents?kb=finance").json().documents).toHaveLength(1);
});

test("one person never sees another's conversations", async () => {
  const mine = JSON.parse((await pageFetch(pages.reader, "/api/conversations")).body).conversations as { id: string }[];
  expect(mine.length).toBeGreaterThan(0);
  const theirs = JSON.parse((await pageFetch(pages.editor, "/api/conversations")).body).conversations as { id: string }[];
  expect(theirs.map((c) => c.id)).not.toContain(mine[0].id);
  expect((await pageFetch(pages.editor, `/api/conversations/${mine[0].id}`)).status).toBe(404);
  expect((await pageFetch(pages.editor, `/api/conversations/${mine[0].id}`, { method: "DELETE" })).status).toBe(404);
  expect((await pageFetch(pages.reader, `/api/conversations/${mine[0].id}`)).status).toBe(200);
});

let readerToken = "";
let oauthToken = "";

test("the reader's token and OAuth grant reach hr only", async () => {
  const page = pages.reader;
  expect((await pageFetch(page, "/api/tokens", { method: "POST", json: { name: "too much", scope: "read-write" } })).status).toBe(403);
  expect((await pageFetch(page, "/api/tokens", { method: "POST", json: { name: "finance", scope: "read", kb: "finance" } })).status).toBe(
    403,
  );
  const made = await pageFetch(page, "/api/tokens", { method: "POST", json: { name: "cli", scope: "read" } });
  expect(made.status).toBe(201);
  readerToken = JSON.parse(made.body).secret;

  expect(searchText(mcp(readerToken, "tools/call", { name: "search_knowledge", arguments: { query: "annual leave days" } }))).toContain(
    "25 days",
  );
  const finance = mcp(readerToken, "tools/call", { name: "search_knowledge", arguments: { query: "travel budget code", kb: "finance" } });
  expect(searchText(finance)).not.toContain("FIN-7731");
  expect(mcp(readerToken, "tools/list", {}, "/api/mcp/finance").status).toBe(403);

  // OAuth: the reader consents in the browser, within their own grants.
  const reg = curl("cli", "POST", "/oauth/register", {
    json: {
      client_name: "Remote host",
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code"],
      response_types: ["code"],
    },
  });
  expect(reg.status, reg.body).toBe(201);
  const clientId = reg.json().client_id as string;
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const query = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "s1",
    resource: `${app()}/api/mcp`,
    scope: "kb:read kb:write",
  });
  await page.goto(`${app()}/oauth/authorize?${query}`);
  await expect(page.getByTestId("consent-signed-in")).toContainText("reader@team.test");
  await expect(page.getByTestId("consent-kb-finance")).toHaveCount(0);
  await expect(page.getByTestId("consent-read-write")).toHaveCount(0);
  await page.getByTestId("consent-kb-hr").check();
  const redirected = page.waitForRequest((r) => r.url().startsWith(REDIRECT));
  await page.getByTestId("consent-allow").click();
  const code = new URL((await redirected).url()).searchParams.get("code")!;
  const token = curl("cli", "POST", "/oauth/token", {
    form: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: verifier,
      resource: `${app()}/api/mcp`,
    }).toString(),
  });
  expect(token.status, token.body).toBe(200);
  oauthToken = token.json().access_token;
  expect(searchText(mcp(oauthToken, "tools/call", { name: "search_knowledge", arguments: { query: "annual leave days" } }))).toContain(
    "25 days",
  );
});

test("removing a grant holds on the next request: chat, token and OAuth grant", async () => {
  const reader = (curl("srv", "GET", "/api/users").json().users as { id: string; email: string }[]).find(
    (u) => u.email === "reader@team.test",
  )!;
  expect(curl("srv", "PATCH", `/api/users/${reader.id}`, { json: { kbs: [] } }).status).toBe(200);
  await pages.reader.goto(`${app()}/`); // back from the OAuth redirect

  const chat = await pageFetch(pages.reader, "/api/chat", {
    method: "POST",
    json: { messages: [{ id: "m1", role: "user", parts: [{ type: "text", text: "How many days of annual leave do I get?" }] }] },
  });
  expect(chat.status).toBe(403);
  expect(chat.body).not.toContain("25 days");
  for (const token of [readerToken, oauthToken]) {
    const r = mcp(token, "tools/call", { name: "search_knowledge", arguments: { query: "annual leave days" } });
    expect(r.body).not.toContain("25 days");
    expect(r.status).toBe(403);
  }
  // Given back, it works again; the account removed, its token dies with it.
  expect(curl("srv", "PATCH", `/api/users/${reader.id}`, { json: { kbs: ["hr"] } }).status).toBe(200);
  expect(searchText(mcp(readerToken, "tools/call", { name: "search_knowledge", arguments: { query: "annual leave days" } }))).toContain(
    "25 days",
  );
});

test("single sign-on: the allowed domain joins as a reader of hr, an admin group as admin, another domain is refused", async () => {
  const ann = await ssoSignIn("ann@example.com");
  await ann.waitForURL(`${app()}/`);
  const session = JSON.parse((await pageFetch(ann, "/api/session")).body);
  expect(session.viewer).toMatchObject({ kind: "user", email: "ann@example.com", role: "reader", kbs: ["hr"] });

  const eve = await ssoSignIn("eve@other.test");
  await eve.waitForURL(/\/signin\?error=/);
  await expect(eve.getByRole("alert").filter({ hasText: "may not join" })).toBeVisible();
  expect((curl("srv", "GET", "/api/users").json().users as { email: string }[]).map((u) => u.email)).not.toContain("eve@other.test");

  const boss = await ssoSignIn("boss@other.test");
  await boss.waitForURL(`${app()}/`);
  pages.boss = boss;
  expect(JSON.parse((await pageFetch(boss, "/api/session")).body).viewer.role).toBe("admin");
});

test("single sign-on: an address the provider did not verify is marked on People; a NUL in a claim is a clear refusal", async () => {
  const squat = await ssoSignIn("squat:cfo@corp.test");
  await squat.waitForURL(`${app()}/`);
  const listed = (curl("srv", "GET", "/api/users").json().users as { email: string; emailVerified: boolean }[]).find(
    (u) => u.email === "cfo@corp.test",
  );
  expect(listed).toMatchObject({ emailVerified: false });
  await squat.goto(`${app()}/people`);
  const row = squat.locator('[data-testid="user-row"][data-email="cfo@corp.test"]');
  await expect(row.getByTestId("person-unverified")).toBeVisible();
  await expect(squat.locator('[data-testid="user-row"][data-email="ann@example.com"]').getByTestId("person-unverified")).toHaveCount(0);
  // An invite to the address is not refused because of it.
  expect(curl("srv", "POST", "/api/invites", { json: { email: "cfo@corp.test", role: "reader", kbs: ["hr"] } }).status).toBe(201);

  const nul = await ssoSignIn("nul:n@example.com");
  await nul.waitForURL(/\/signin\?error=sso_bad_claims/);
  await expect(nul.getByRole("alert").filter({ hasText: "cannot accept" })).toBeVisible();
});

test("a changed or reset password ends the person's other sessions; sign out everywhere ends them all", async () => {
  const editor = pages.editor;
  const elsewhere = curl("cli", "POST", "/api/session", { json: { email: "editor@team.test", password: PASSWORD } });
  expect(elsewhere.status).toBe(200);
  const other = elsewhere.headers
    .split("\n")
    .filter((h) => /^set-cookie: kb_/i.test(h))
    .map((h) => h.slice(h.indexOf(":") + 1, h.indexOf(";")).trim())
    .join("; ");
  const viewerOf = (cookie: string) => curl("cli", "GET", "/api/session", { headers: { cookie } }).json().viewer;
  expect(viewerOf(other)).toMatchObject({ email: "editor@team.test" });

  await editor.goto(`${app()}/account`);
  await editor.getByTestId("password-current").fill(PASSWORD);
  await editor.getByTestId("password-new").fill("the editor's new password");
  await editor.getByTestId("password-submit").click();
  await expect(editor.getByTestId("password-changed")).toBeVisible();
  expect(viewerOf(other)).toBeNull();
  expect(JSON.parse((await pageFetch(editor, "/api/session")).body).viewer).toMatchObject({ email: "editor@team.test" });

  // The admin resets it on People: every session of the editor ends, this browser's too.
  const boss = pages.boss;
  await boss.goto(`${app()}/people`);
  boss.once("dialog", (d) => void d.accept(PASSWORD));
  await boss.locator('[data-testid="user-row"][data-email="editor@team.test"]').getByTestId("user-reset-password").click();
  await expect(boss.getByTestId("people-notice")).toBeVisible();
  expect(JSON.parse((await pageFetch(editor, "/api/session")).body).viewer).toBeNull();

  const reader = pages.reader;
  const second = await (await browser.newContext()).newPage();
  await second.goto(`${app()}/signin`);
  await second.getByTestId("signin-email").fill("reader@team.test");
  await second.getByTestId("signin-password").fill(PASSWORD);
  await second.getByTestId("signin-submit").click();
  await second.waitForURL(`${app()}/`);
  await reader.goto(`${app()}/account`);
  await reader.getByTestId("sign-out-everywhere").click();
  await reader.waitForURL(/\/signin/);
  expect(JSON.parse((await pageFetch(second, "/api/session")).body).viewer).toBeNull();
});

test("the admin secret signs in to a session: the browser keeps no secret, and the admin signs out", async () => {
  const page = await (await browser.newContext()).newPage();
  await page.goto(`${app()}/signin?error=${encodeURIComponent("Call +1 555 0100 to unlock your account")}`);
  await expect(page.getByRole("alert").filter({ hasText: "Signing in failed." })).toBeVisible();
  await expect(page.getByText("555 0100")).toHaveCount(0);
  await page.getByText("Admin secret (recovery)").click();
  await page.getByTestId("admin-token").fill(ADMIN);
  await page.getByTestId("admin-token").press("Enter");
  await page.waitForURL(`${app()}/`);
  await page.goto(`${app()}/people`);
  await expect(page.getByTestId("user-row").first()).toBeVisible();
  const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie);
  expect(stored).not.toContain(ADMIN);
  await page.getByTestId("sign-out").click();
  await page.waitForURL(/\/signin/);
  expect(JSON.parse((await pageFetch(page, "/api/session")).body).viewer).toBeNull();
});

test("cookies are HttpOnly and SameSite=Lax; cross-origin and CSRF-less posts are refused; ten wrong passwords lock the address", async () => {
  const ok = curl("cli", "POST", "/api/session", { json: { email: "editor@team.test", password: PASSWORD } });
  expect(ok.status).toBe(200);
  const session = ok.headers.split("\n").find((h) => /^set-cookie: kb_session=/i.test(h))!;
  expect(session).toMatch(/HttpOnly/);
  expect(session).toMatch(/SameSite=Lax/);
  const cookie = session.slice(session.indexOf(":") + 1, session.indexOf(";")).trim();

  const evil = { origin: "http://evil.test" };
  expect(curl("cli", "POST", "/api/session", { headers: evil, form: "email=editor%40team.test&password=x" }).status).toBe(403);
  expect(curl("cli", "POST", "/api/tokens", { headers: { ...evil, cookie }, json: { name: "x", scope: "read" } }).status).toBe(403);
  // A form post from a page of this origin without the session's CSRF token (what a cross-site form could send).
  expect(curl("cli", "POST", "/api/tokens", { headers: { cookie }, json: { name: "x", scope: "read" } }).status).toBe(403);
  expect(curl("cli", "POST", "/api/session", { form: "email=editor%40team.test&password=x" }).status).toBe(415);

  // Until the first 429 (bounded): a busy machine's slow password checks may let the budget refill by one or two.
  const wrong: number[] = [];
  while (wrong.length < 30 && wrong.at(-1) !== 429) {
    wrong.push(curl("cli", "POST", "/api/session", { json: { email: "editor@team.test", password: "not the password" } }).status);
  }
  expect(wrong.slice(0, 10)).toEqual(Array(10).fill(401));
  expect(wrong.at(-1)).toBe(429);
  expect(curl("cli", "POST", "/api/session", { json: { email: "editor@team.test", password: PASSWORD } }).status).toBe(429);
});

test("the audit log records each action with its actor, and its page filters it", async () => {
  const events = curl("srv", "GET", "/api/audit?limit=500").json().events as {
    actor: string;
    action: string;
    kb: string | null;
    outcome: string;
  }[];
  const has = (actor: string | RegExp, action: string) =>
    events.some((e) => (typeof actor === "string" ? e.actor === actor : actor.test(e.actor)) && e.action === action);
  expect(has("reader@team.test", "user_join")).toBe(true);
  expect(has("editor@team.test", "document_upload")).toBe(true);
  expect(has("reader@team.test", "token_create")).toBe(true);
  expect(has("reader@team.test", "oauth_grant")).toBe(true);
  expect(has("local", "user_update")).toBe(true);
  expect(has("local", "user_invite")).toBe(true);
  expect(has("ann@example.com", "sign_in")).toBe(true);
  expect(has("editor@team.test", "sign_in_failed")).toBe(true);
  expect(has(/^eve@other.test$/, "sign_in_failed")).toBe(true);
  expect(has("local", "document_upload")).toBe(true);

  const page = pages.boss;
  await page.goto(`${app()}/audit`);
  await expect(page.getByTestId("audit-row").first()).toBeVisible();
  await page.getByTestId("audit-action").selectOption("document_upload");
  await page.getByTestId("audit-actor").fill("editor@");
  await page.getByTestId("audit-apply").click();
  await expect(page.getByTestId("audit-row")).toHaveCount(1);
  await expect(page.getByTestId("audit-row")).toContainText("holidays.md");
  const csv = await pageFetch(page, "/api/audit?format=csv&action=document_upload");
  expect(csv.body.split("\r\n")[0]).toBe('"at","actor","action","outcome","kb","target","detail","address"');
  expect(csv.body).toContain('"editor@team.test","document_upload","ok","hr"');
  const metrics = curl("srv", "GET", "/metrics").body;
  expect(metrics).toMatch(/kb_audit_events_total\{action="document_upload",outcome="ok"\} [1-9]/);
});
