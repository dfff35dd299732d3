/**
 * The MCP Apps citation view in a browser, with a host: a page that plays the host's side of the ext-apps
 * protocol (the package's own AppBridge over postMessage) embeds the ui:// resource read from the app's MCP
 * endpoint in a sandboxed iframe, sends it the search tool's input and a real result from that endpoint, and
 * the view shows the source cards: title, heading path, the matching sentence marked, the surrounding text
 * behind a disclosure, and a link to the passage in the app (opened through the host). English and Chinese,
 * light and dark, under the view's own CSP; axe finds nothing serious or critical.
 */
import AxeBuilder from "@axe-core/playwright";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Page } from "@playwright/test";
import { build } from "esbuild";
import type { SearchResult } from "../lib/tools/search-result";
import { connectMcp, mcpUrl } from "./helpers/mcp";
import { expect, PORTS, test } from "./helpers/servers";

const VIEW_URI = "ui://knowledge-base/citations.html";
const QUERY = { en: "How many days of annual leave do I get?", zh: "报销时员工要先填写什么？" } as const;

let client: Client;
let html: string;
/** The host's side of the protocol (AppBridge, PostMessageTransport) as one browser script. */
let bridgeScript: string;

test.beforeAll(async () => {
  client = await connectMcp(mcpUrl(PORTS.offline));
  const { contents } = await client.readResource({ uri: VIEW_URI });
  expect(contents[0].mimeType).toBe("text/html;profile=mcp-app");
  html = (contents[0] as { text: string }).text;
  const out = await build({
    stdin: {
      contents: 'export { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";',
      resolveDir: process.cwd(),
    },
    bundle: true,
    write: false,
    format: "iife",
    globalName: "ExtAppsHost",
    platform: "browser",
    logLevel: "warning",
  });
  bridgeScript = out.outputFiles[0].text;
});

test.afterAll(async () => {
  await client?.close();
});

async function search(query: string) {
  const { tools } = await client.listTools();
  expect(tools.find((t) => t.name === "search_knowledge")?._meta?.ui).toEqual({ resourceUri: VIEW_URI });
  const result = (await client.callTool({ name: "search_knowledge", arguments: { query, top_k: 3 } })) as CallToolResult;
  const results = (result.structuredContent as { results: SearchResult[] }).results;
  expect(results.length).toBeGreaterThan(0);
  return { result, results };
}

interface HostWindow {
  ExtAppsHost: typeof import("@modelcontextprotocol/ext-apps/app-bridge");
  opened: string[];
  bridge: InstanceType<typeof import("@modelcontextprotocol/ext-apps/app-bridge").AppBridge>;
}

/** A blank page acting as the host: the view in a sandboxed iframe, the tool input and result sent once it initializes. */
async function host(page: Page, view: string, input: Record<string, unknown>, result: CallToolResult, ctx: Record<string, unknown>) {
  const cspErrors: string[] = [];
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) cspErrors.push(m.text());
  });
  await page.setContent('<!doctype html><html lang="en"><head><title>Host</title></head><body><main></main></body></html>');
  await page.addScriptTag({ content: bridgeScript });
  await page.evaluate(
    async ({ view, input, result, ctx }) => {
      const w = window as unknown as HostWindow;
      const { AppBridge, PostMessageTransport } = w.ExtAppsHost;
      const iframe = document.createElement("iframe");
      iframe.setAttribute("sandbox", "allow-scripts");
      iframe.title = "Search results";
      iframe.style.cssText = "width:720px;height:400px;border:0";
      document.querySelector("main")!.append(iframe);
      w.opened = [];
      const bridge = new AppBridge(null, { name: "e2e-host", version: "1.0.0" }, { openLinks: {} }, { hostContext: ctx });
      bridge.onopenlink = async ({ url }) => {
        w.opened.push(url);
        return {};
      };
      bridge.onsizechange = ({ height }) => {
        if (height) iframe.style.height = `${height}px`;
      };
      bridge.oninitialized = () => {
        void bridge.sendToolInput({ arguments: input }).then(() => bridge.sendToolResult(result));
      };
      w.bridge = bridge;
      await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
      iframe.srcdoc = view;
    },
    { view, input, result: JSON.parse(JSON.stringify(result)) as CallToolResult, ctx },
  );
  return { frame: page.frameLocator("iframe"), cspErrors };
}

async function audit(page: Page, what: string) {
  const { violations } = await new AxeBuilder({ page })
    .include("iframe")
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"])
    .analyze();
  const bad = violations
    .filter((v) => v.impact === "critical" || v.impact === "serious")
    .map((v) => `${what}: [${v.impact}] ${v.id} — ${v.help}\n  ${v.nodes.map((n) => n.target.join(" ")).join("\n  ")}`);
  expect(bad, bad.join("\n")).toEqual([]);
}

test.describe.configure({ timeout: 180_000 });

for (const locale of ["en-US", "zh-CN"] as const) {
  for (const theme of ["light", "dark"] as const) {
    test(`source cards for a real search result (${locale}, ${theme})`, async ({ page }) => {
      const lang = locale === "zh-CN" ? "zh" : "en";
      const query = QUERY[lang];
      const { result, results } = await search(query);
      const { frame, cspErrors } = await host(page, html, { query, top_k: 3 }, result, { theme, locale, platform: "web" });

      const cards = frame.getByTestId("citation-card");
      await expect(cards).toHaveCount(results.length);
      await expect(frame.locator("html")).toHaveAttribute("lang", lang);
      await expect(frame.locator("html")).toHaveAttribute("data-theme", theme);
      await expect(frame.locator("h1")).toContainText(query);

      const first = results[0];
      const card = cards.first();
      await expect(card.getByTestId("citation-title")).toHaveText(first.type === "faq" ? first.faq!.question : first.document.title);
      // The heading path without the title (ChunkCard's rule), e.g. "Leave › Annual leave".
      const section = first.heading.split(" › ").filter((p) => p && p !== first.document.title);
      if (section.length > 0) await expect(card.getByTestId("citation-heading")).toContainText(section.at(-1)!);

      // The sentence sharing the most of the query's terms is marked, and it is in the passage.
      const mark = card.locator("[data-testid=citation-text] mark");
      await expect(mark).toHaveCount(1);
      const marked = (await mark.textContent())!.trim();
      expect(marked.length).toBeGreaterThan(5);
      expect(first.text.replace(/\*\*|__/g, "")).toContain(marked);
      if (lang === "en") expect(marked.toLowerCase()).toContain("annual leave");

      // The surrounding text, behind a disclosure.
      const withContext = results.findIndex((r) => r.context_before?.trim() || r.context_after?.trim());
      if (withContext >= 0) {
        const details = cards.nth(withContext).locator("details");
        await expect(details.locator("p").first()).toBeHidden();
        await details.locator("summary").click();
        await expect(details.locator("p").first()).toBeVisible();
        await expect(details.locator("summary")).toHaveText(lang === "zh" ? "显示上下文" : "Show surrounding text");
      }

      // The link to the passage in the app, on the app's own origin; the host is asked to open it.
      const link = card.getByTestId("citation-link");
      const path = `/documents/${encodeURIComponent(first.document.id)}?chunk=${encodeURIComponent(first.chunk_id)}`;
      expect(new URL((await link.getAttribute("href"))!).pathname + new URL((await link.getAttribute("href"))!).search).toBe(path);
      expect(await link.getAttribute("href")).toBe(`http://127.0.0.1:${PORTS.offline}${path}`);
      await expect(link).toContainText(lang === "zh" ? "在文档中查看" : "Open in document");
      await link.click();
      await expect
        .poll(() => page.evaluate(() => (window as unknown as HostWindow).opened))
        .toEqual([`http://127.0.0.1:${PORTS.offline}${path}`]);

      await audit(page, `citation view (${locale}, ${theme})`);
      expect(cspErrors).toEqual([]);
    });
  }
}

test("follows the host's theme and locale when they change", async ({ page }) => {
  const { result } = await search(QUERY.en);
  const { frame } = await host(page, html, { query: QUERY.en }, result, { theme: "light", locale: "en-US" });
  await expect(frame.getByTestId("citation-card").first()).toBeVisible();
  await page.evaluate(() => (window as unknown as HostWindow).bridge.sendHostContextChange({ theme: "dark", locale: "zh-CN" }));
  await expect(frame.locator("html")).toHaveAttribute("data-theme", "dark");
  await expect(frame.getByTestId("citation-link").first()).toContainText("在文档中查看");
  // Dark really is dark: the page background is not white.
  const bg = await frame.locator("body").evaluate((b) => getComputedStyle(b).backgroundColor);
  expect(bg).not.toBe("rgb(255, 255, 255)");
});

test("a host without results shows a message, not an empty frame", async ({ page }) => {
  const empty: CallToolResult = { content: [{ type: "text", text: "No passages found." }], structuredContent: { results: [] } };
  const { frame } = await host(page, html, { query: "zzzz qqqq" }, empty, { locale: "en-US" });
  await expect(frame.locator(".status")).toHaveText("No passages found.");
  await expect(frame.getByTestId("citation-card")).toHaveCount(0);
});
