/**
 * Shared mode: the app with REQUIRE_TOKEN=1 and ADMIN_TOKEN (playwright.config.ts, PORTS.secure). The web
 * app's own read routes (documents, knowledge bases, example questions, chat) need the admin token like
 * its management routes, and the browser sends the token it keeps once entered on the Knowledge bases page.
 */
import { expect, PORTS, SECURE, test } from "./helpers/servers";

const SECURED = `http://127.0.0.1:${PORTS.secure}`;
const ADMIN = { Authorization: `Bearer ${SECURE.adminToken}` };
const QUESTION = "How many days of annual leave do employees get?";
const chatBody = JSON.stringify({ messages: [{ id: "q1", role: "user", parts: [{ type: "text", text: QUESTION }] }] });

interface Doc {
  id: string;
  title: string;
  source: string;
}

async function get(path: string, headers: Record<string, string> = {}) {
  return fetch(`${SECURED}${path}`, { headers });
}

async function chat(headers: Record<string, string> = {}) {
  return fetch(`${SECURED}/api/chat`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: chatBody });
}

/** A refusal: 401 JSON `{ error: { code, message } }` with WWW-Authenticate, and none of the documents in it. */
async function expectRefused(res: Response, docs: Doc[]) {
  expect(res.status).toBe(401);
  expect(res.headers.get("www-authenticate")).toMatch(/^Bearer /);
  const text = await res.text();
  const body = JSON.parse(text) as { error: { code: string; message: string } };
  expect(body.error.code).toBe("unauthorized");
  expect(body.error.message).toMatch(/sign in|admin secret/i);
  for (const d of docs) {
    expect(text).not.toContain(d.id);
    expect(text).not.toContain(d.source);
  }
  expect(text).not.toMatch(/20 days|annual leave/i);
}

test.describe.configure({ mode: "serial" });

let docs: Doc[] = [];

test("with the admin token the read routes answer, and the chat streams an answer", async () => {
  const list = await get("/api/documents", ADMIN);
  expect(list.status).toBe(200);
  docs = ((await list.json()) as { documents: Doc[] }).documents;
  expect(docs.length).toBeGreaterThanOrEqual(4);

  const one = await get(`/api/documents/${encodeURIComponent(docs[0].id)}`, ADMIN);
  expect(one.status).toBe(200);
  expect(((await one.json()) as { document: Doc }).document.id).toBe(docs[0].id);

  const kbs = await get("/api/kbs", ADMIN);
  expect(kbs.status).toBe(200);
  expect(((await kbs.json()) as { access: { requireToken: boolean } }).access.requireToken).toBe(true);

  const examples = await get("/api/chat/examples", ADMIN);
  expect(examples.status).toBe(200);
  expect(((await examples.json()) as { questions: string[] }).questions.length).toBeGreaterThan(0);

  const answer = await chat(ADMIN);
  expect(answer.status).toBe(200);
  expect(answer.headers.get("content-type")).toContain("text/event-stream");
  const events = (await answer.text())
    .split("\n")
    .filter((l) => l.startsWith("data: {"))
    .map((l) => JSON.parse(l.slice(6)) as { type: string; delta?: string });
  const text = events.flatMap((e) => (e.type === "text-delta" && e.delta ? [e.delta] : [])).join("");
  expect(text).toContain("20 days");
});

test("without the admin token (or with a wrong one) they answer 401 and leak no document", async () => {
  expect(docs.length).toBeGreaterThan(0);
  const attempts: Record<string, string>[] = [{}, { Authorization: "Bearer not-the-admin-token" }];
  for (const headers of attempts) {
    await expectRefused(await get("/api/documents", headers), docs);
    await expectRefused(await get(`/api/documents/${encodeURIComponent(docs[0].id)}`, headers), docs);
    await expectRefused(await get("/api/kbs", headers), docs);
    await expectRefused(await get("/api/kbs/default", headers), docs);
    await expectRefused(await get("/api/chat/examples", headers), docs);
    await expectRefused(await chat(headers), docs);
  }
});

test("the browser is sent to sign in; the admin secret there is sent with every call", async ({ page }) => {
  await page.goto(`${SECURED}/documents`);
  await page.waitForURL(/\/signin\?next=%2Fdocuments/);
  await expect(page.getByTestId("document-row")).toHaveCount(0);

  await page.getByText("Admin secret (recovery)").click();
  await page.getByTestId("admin-token").fill("not-the-admin-token");
  await page.getByTestId("admin-token").press("Enter");
  await expect(page.getByRole("alert").filter({ hasText: "not the admin secret" })).toBeVisible();
  await page.getByTestId("admin-token").fill(SECURE.adminToken);
  await page.getByTestId("admin-token").press("Enter");
  await page.waitForURL(`${SECURED}/documents`);
  await expect(page.getByTestId("document-row").first()).toBeVisible();

  await page.goto(`${SECURED}/kbs`);
  await expect(page.getByTestId("kb-card").first()).toBeVisible();

  await page.goto(`${SECURED}/`);
  await expect(page.getByTestId("example-question").first()).toBeVisible();
  const input = page.getByTestId("chat-input");
  await input.fill(QUESTION);
  await input.press("Enter");
  const answer = page.getByTestId("assistant-message").last();
  await expect(answer.getByTestId("copy-answer")).toBeVisible();
  await expect(answer.getByTestId("answer")).toContainText("20 days");
});
