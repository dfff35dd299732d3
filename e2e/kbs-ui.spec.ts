/**
 * The knowledge-base page and the Connect dialog in a real browser: create a knowledge base, upload into it,
 * create a token, copy the MCP URL, then a real MCP client with that token finds the document through the
 * knowledge base's own search tool.
 */
import { connectMcp, postRaw, resultText } from "./helpers/mcp";
import { expect, PORTS, test } from "./helpers/servers";

const RUN = Math.random().toString(36).slice(2, 8);
const NAME = `bees-${RUN}`;
const TOOL = `search_bees_${RUN}`;
const PHRASE = `The ${RUN}quillon hive is inspected every ninth morning`;
const BASE = `http://127.0.0.1:${PORTS.offline}`;

/** Creates a knowledge base through the API. */
const createKb = (kb: { name: string; title?: string }) =>
  fetch(`${BASE}/api/kbs`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(kb) });

test.use({ permissions: ["clipboard-read", "clipboard-write"] });
test.describe.configure({ mode: "serial" });

test.afterAll(async () => {
  await fetch(`${BASE}/api/kbs/${NAME}`, { method: "DELETE" });
  await fetch(`${BASE}/api/kbs/${NAME}-renamed`, { method: "DELETE" });
});

test("create a knowledge base, upload into it, connect with a token, and search it over MCP", async ({ page }) => {
  await page.goto("/kbs");
  await page.getByTestId("kb-name").fill(NAME);
  await page.getByTestId("kb-title").fill("Beekeeping");
  await page.getByTestId("kb-description").fill("Hive inspections and the honey harvest");
  await page.getByTestId("create-kb").click();

  const card = page.locator(`[data-testid="kb-card"][data-kb="${NAME}"]`);
  await expect(card).toContainText("Beekeeping");
  await expect(card).toContainText("Hive inspections and the honey harvest");
  await expect(card).toContainText(TOOL);
  await expect(card.getByTestId("kb-count")).toHaveText(/^0 /);

  await card.getByTestId("add-documents-input").setInputFiles({
    name: `hives-${RUN}.md`,
    mimeType: "text/markdown",
    buffer: Buffer.from(`# Hive inspections\n\n## Schedule\n\n${PHRASE}, weather permitting.\n`),
  });
  await expect(card.getByTestId("kb-count")).toHaveText(/^1 /, { timeout: 60_000 });

  await card.getByTestId("kb-connect").click();
  const dialog = page.getByRole("dialog");
  await expect(dialog.getByTestId("connect-scope")).toHaveValue(NAME);
  await expect(dialog.getByTestId("mcp-url")).toHaveValue(`${BASE}/api/mcp/${NAME}`);
  await dialog.getByTestId("token-name").fill(`e2e ui ${RUN}`);
  await dialog.getByTestId("token-scope-read").check();
  await expect(dialog.getByTestId("token-limit-kb")).toBeChecked();
  await dialog.getByTestId("create-token").click();
  const secret = (await dialog.getByTestId("token-secret").textContent())!.trim();
  expect(secret).toMatch(/^kbt_/);

  await dialog.getByTestId("copy-url").click();
  await expect(dialog.getByTestId("copy-url")).toHaveText("Copied");
  const url = await page.evaluate(() => navigator.clipboard.readText());
  expect(url).toBe(`${BASE}/api/mcp/${NAME}`);

  // The configurations carry the URL and the new token.
  await dialog.getByTestId("snippet-tab-cursor").click();
  const cursor = JSON.parse((await dialog.getByTestId("snippet").textContent())!);
  expect(cursor).toEqual({ mcpServers: { [`kb-${NAME}`]: { url, headers: { Authorization: `Bearer ${secret}` } } } });
  await dialog.getByTestId("snippet-tab-claude-code").click();
  await expect(dialog.getByTestId("snippet")).toHaveText(
    `claude mcp add --transport http kb-${NAME} ${url} --header 'Authorization: Bearer ${secret}'`,
  );
  await dialog.getByTestId("snippet-tab-claude-desktop").click();
  await expect(dialog.getByTestId("snippet")).toContainText('"mcp-remote"');

  const client = await connectMcp(url, { Authorization: `Bearer ${secret}` });
  try {
    const tool = (await client.listTools()).tools.find((t) => t.name === TOOL);
    expect(tool?.description).toContain("Search the Beekeeping knowledge base: Hive inspections and the honey harvest.");
    const result = await client.callTool({ name: TOOL, arguments: { query: `${RUN}quillon hive inspected` } });
    expect(resultText(result)).toContain(PHRASE);
  } finally {
    await client.close();
  }
  // The token is limited to this knowledge base: the library's other endpoints are closed to it.
  const list = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
  expect((await postRaw(`${BASE}/api/mcp/default`, list, { Authorization: `Bearer ${secret}` })).status).toBe(403);

  await dialog.getByTestId("connect-close").click();
  await expect(dialog).toHaveCount(0);

  // The new token is listed (without its secret) and can be revoked.
  const row = page.locator('[data-testid="token-row"]', { hasText: `e2e ui ${RUN}` });
  await expect(row).toBeVisible();
  await expect(page.getByTestId("token-list")).not.toContainText(secret);
  await row.getByTestId("token-revoke").click();
  await row.getByTestId("token-revoke-confirm").click();
  await expect(row).toContainText("revoked");
  expect((await postRaw(url, list, { Authorization: `Bearer ${secret}` })).status).toBe(401);
});

test("describe, rename and delete a knowledge base", async ({ page }) => {
  await page.goto("/kbs");
  const card = page.locator(`[data-testid="kb-card"][data-kb="${NAME}"]`);
  await card.getByTestId("kb-edit").click();
  await card.getByTestId("kb-edit-description").fill("Hives, swarms and honey");
  await card.getByTestId("kb-edit-name").fill(`${NAME}-renamed`);
  await card.getByTestId("kb-save").click();

  const renamed = page.locator(`[data-testid="kb-card"][data-kb="${NAME}-renamed"]`);
  await expect(renamed).toContainText("Hives, swarms and honey");
  await expect(renamed.getByTestId("kb-count")).toHaveText(/^1 /);
  await expect(card).toHaveCount(0);

  await renamed.getByTestId("kb-delete").click();
  await expect(renamed).toContainText("cannot be undone");
  await renamed.getByTestId("kb-delete-confirm").click();
  await expect(renamed).toHaveCount(0);
  const res = await fetch(`${BASE}/api/kbs/${NAME}-renamed`);
  expect(res.status).toBe(404);

  // The default knowledge base cannot be deleted from the UI.
  await expect(page.locator('[data-testid="kb-card"][data-kb="default"]').getByTestId("kb-delete")).toHaveCount(0);
});

test("a knowledge base card shows the tool name the library's MCP server really serves when two names clash", async ({ page }) => {
  // "clash-<run>" and "clash_<run>" both make search_clash_<run>: the server gives the second a hash suffix.
  const names = [`clash-${RUN}`, `clash_${RUN}`];
  for (const name of names) {
    expect((await createKb({ name })).status).toBe(201);
  }
  try {
    const client = await connectMcp(`${BASE}/api/mcp`);
    const served = new Map<string, string>();
    try {
      for (const tool of (await client.listTools()).tools) {
        const kb = tool._meta?.["knowledge-base/kb"];
        if (typeof kb === "string") served.set(kb, tool.name);
      }
    } finally {
      await client.close();
    }
    expect(served.get(`clash_${RUN}`)).toMatch(new RegExp(`^search_clash_${RUN}_[0-9a-f]{6}$`));
    await page.goto("/kbs");
    for (const name of names) {
      await expect(page.locator(`[data-testid="kb-card"][data-kb="${name}"]`).getByTestId("kb-tool")).toHaveText(served.get(name)!);
    }
  } finally {
    for (const name of names) await fetch(`${BASE}/api/kbs/${name}`, { method: "DELETE" });
  }
});

test("the library's Connect dialog works at phone width", async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 740 });
  await page.goto("/kbs");
  await page.getByTestId("connect-library").click();
  const dialog = page.getByRole("dialog");
  await expect(dialog.getByTestId("mcp-url")).toHaveValue(`${BASE}/api/mcp`);
  const box = await dialog.boundingBox();
  expect(box!.width).toBeLessThanOrEqual(375);
  await dialog.getByTestId("snippet-tab-vscode").click();
  expect(JSON.parse((await dialog.getByTestId("snippet").textContent())!)).toEqual({
    servers: { "knowledge-base": { type: "http", url: `${BASE}/api/mcp` } },
  });
  await page.keyboard.press("Escape");
  await expect(dialog).toHaveCount(0);
});

test("the documents page uploads into the knowledge base picked in its header", async ({ page }) => {
  const kb = `docs-${RUN}`;
  expect((await createKb({ name: kb })).status).toBe(201);
  try {
    await page.goto("/documents");
    await page.getByTestId("upload-kb").selectOption(kb);
    await page.getByTestId("add-documents-input").setInputFiles({
      name: `picked-${RUN}.md`,
      mimeType: "text/markdown",
      buffer: Buffer.from(`# Picked\n\nThis file went into ${kb}.\n`),
    });
    await expect
      .poll(
        async () =>
          ((await (await fetch(`${BASE}/api/documents?kb=${kb}`)).json()) as { documents: { source: string }[] }).documents.map(
            (d) => d.source,
          ),
        {
          timeout: 60_000,
        },
      )
      .toEqual([`picked-${RUN}.md`]);
    await page.getByTestId("kbs-link").click();
    await expect(page.locator(`[data-testid="kb-card"][data-kb="${kb}"]`).getByTestId("kb-count")).toHaveText(/^1 /);
  } finally {
    await fetch(`${BASE}/api/kbs/${kb}`, { method: "DELETE" });
  }
});

test("the chat searches only the knowledge bases picked in its header, and opens Connect", async ({ page }) => {
  const kb = `chat-${RUN}`;
  // Knowledge bases before it in the list, more than the page is high: the list scrolls within the open filter.
  const before = Array.from({ length: 30 }, (_, i) => `a-${RUN}-${i}`);
  for (const name of before) expect((await createKb({ name })).status).toBe(201);
  expect((await createKb({ name: kb, title: `Rota ${RUN}` })).status).toBe(201);
  const form = new FormData();
  form.append(
    "files",
    new Blob([`# Garden rota\n\n## Annual leave\n\nFull-time employees of the ${RUN}marigold rota get 3 days of annual leave per year.\n`]),
    `rota-${RUN}.md`,
  );
  form.append("kb", kb);
  expect((await fetch(`${BASE}/api/documents`, { method: "POST", body: form })).status).toBe(200);
  try {
    await page.goto("/");
    await page.getByTestId("kb-filter").click();
    await page.locator(`[data-testid="kb-filter-option"][value="${kb}"]`).check();
    await expect(page.getByTestId("kb-filter")).toContainText(`Rota ${RUN}`);
    await page.keyboard.press("Escape");

    const request = page.waitForRequest((r) => r.url().endsWith("/api/chat") && r.method() === "POST");
    const input = page.getByTestId("chat-input");
    await input.fill("How many days of annual leave do full-time employees get?");
    await input.press("Enter");
    expect((await request).postDataJSON().kbs).toEqual([kb]);
    const answer = page.getByTestId("assistant-message").last();
    await expect(answer.getByTestId("copy-answer")).toBeVisible({ timeout: 60_000 });
    const text = await answer.getByTestId("answer").innerText();
    expect(text).toContain(`${RUN}marigold`);
    expect(text).not.toContain("20 days");

    await page.getByTestId("connect-open").click();
    await expect(page.getByRole("dialog").getByTestId("mcp-url")).toHaveValue(`${BASE}/api/mcp`);
  } finally {
    for (const name of [kb, ...before]) await fetch(`${BASE}/api/kbs/${name}`, { method: "DELETE" });
  }
});
