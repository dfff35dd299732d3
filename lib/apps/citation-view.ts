/**
 * The MCP Apps citation view (browser side; bundled into the `ui://` resource of mcp/citation-view.ts): the
 * host sends the search tool's input (the query) and result (structuredContent.results), and the view shows
 * one source card per result: title, heading path, the text with the sentences sharing most of the query's
 * terms marked, the surrounding text behind a disclosure, and a link to the passage in the app. English or
 * Chinese after the host's locale; light or dark after the host's theme. Builds DOM nodes, never HTML.
 */
import { App, applyDocumentTheme, applyHostStyleVariables, type McpUiHostContext } from "@modelcontextprotocol/ext-apps";
import { highlightParts, sectionPath } from "@/lib/agent/highlight";
import type { SearchResult } from "@/lib/tools/search-result";

const STRINGS = {
  en: {
    sources: "Sources",
    sourcesFor: "Sources for “{query}”",
    waiting: "Waiting for search results…",
    none: "No passages found.",
    cancelled: "The search was cancelled.",
    failed: "The search failed.",
    context: "Show surrounding text",
    page: "p. {page}",
    open: "Open in document",
    faq: "FAQ",
  },
  zh: {
    sources: "来源",
    sourcesFor: "“{query}”的来源",
    waiting: "正在等待搜索结果…",
    none: "没有找到相关段落。",
    cancelled: "搜索已取消。",
    failed: "搜索失败。",
    context: "显示上下文",
    page: "第 {page} 页",
    open: "在文档中查看",
    faq: "常见问题",
  },
} as const;
type Strings = (typeof STRINGS)["en"] | (typeof STRINGS)["zh"];

const fill = (s: string, vars: Record<string, string | number>) => s.replace(/\{(\w+)\}/g, (m, k: string) => String(vars[k] ?? m));

/** The app's base URL, written into the page by the server (empty: links stay relative). */
const BASE = document.querySelector<HTMLMetaElement>('meta[name="kb-app-url"]')?.content.replace(/\/+$/, "") ?? "";

/** The document page that shows this passage (as the chat's citation card links it). */
function documentLink(r: Pick<SearchResult, "document" | "chunk_id" | "type" | "faq">): string | null {
  const id = r.type === "faq" ? r.faq?.source.document_id : r.document.id;
  const chunk = r.type === "faq" ? r.faq?.source.chunk_id : r.chunk_id;
  if (!id) return null;
  return `${BASE}/documents/${encodeURIComponent(id)}${chunk ? `?chunk=${encodeURIComponent(chunk)}` : ""}`;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text) node.textContent = text;
  return node;
}

const state: { query?: string; results?: SearchResult[]; status?: keyof Strings; t: Strings } = { t: STRINGS.en };
const root = document.getElementById("root")!;

function card(r: SearchResult, query: string | undefined, t: Strings, app: App): HTMLElement {
  const li = el("li", "card");
  li.dataset.testid = "citation-card";
  const head = el("div", "head");
  head.append(el("span", "n", String(r.ref)));
  const title = el("h2", "title", r.type === "faq" ? (r.faq?.question ?? r.document.title) : r.document.title);
  title.dataset.testid = "citation-title";
  head.append(title);
  if (r.type === "faq") head.append(el("span", "badge", t.faq));
  li.append(head);

  const path = [r.type === "faq" ? "" : sectionPath(r.document.title, r.heading), r.page ? fill(t.page, { page: r.page }) : ""]
    .filter(Boolean)
    .join(" · ");
  if (path) {
    const p = el("p", "path", path);
    p.dataset.testid = "citation-heading";
    li.append(p);
  }

  const { before, mark, after } = highlightParts(r.text, query);
  const body = el("p", "text");
  body.dataset.testid = "citation-text";
  body.append(before);
  if (mark) body.append(el("mark", undefined, mark), after);
  li.append(body);

  // The passage again inside the sentences around it, as it reads in the document (the context says where
  // it joins: a line break, or the rest of a sentence the passage was cut inside).
  const ctxBefore = r.context_before ?? "";
  const ctxAfter = r.context_after ?? "";
  if (ctxBefore.trim() || ctxAfter.trim()) {
    const details = el("details", "context");
    details.append(el("summary", undefined, t.context));
    const flow = el("p", "ctx-passage");
    flow.append(el("span", "ctx", ctxBefore.trimStart()), before);
    if (mark) flow.append(el("mark", undefined, mark), after);
    flow.append(el("span", "ctx", ctxAfter.trimEnd()));
    details.append(flow);
    li.append(details);
  }

  const foot = el("div", "foot");
  foot.append(el("span", "source", r.document.source));
  const href = documentLink(r);
  if (href) {
    const a = el("a", "open", `${t.open} →`);
    a.href = href;
    a.target = "_blank";
    a.rel = "noopener noreferrer";
    a.dataset.testid = "citation-link";
    a.append(el("span", "sr-only", ` (${r.document.title})`));
    // A sandboxed view may not navigate: ask the host to open the link, and let the browser try when it can't.
    a.addEventListener("click", (e) => {
      if (!app.getHostCapabilities()?.openLinks) return;
      e.preventDefault();
      app.openLink({ url: a.href }).catch(() => window.open(a.href, "_blank", "noopener"));
    });
    foot.append(a);
  }
  li.append(foot);
  return li;
}

function render(app: App) {
  const { t, results, query } = state;
  root.replaceChildren();
  const h1 = el("h1", "heading", query ? fill(t.sourcesFor, { query }) : t.sources);
  root.append(h1);
  if (!results) {
    root.append(el("p", "status", t[state.status ?? "waiting"]));
    return;
  }
  if (results.length === 0) {
    root.append(el("p", "status", t.none));
    return;
  }
  const list = el("ol", "cards");
  for (const r of results) list.append(card(r, query, t, app));
  root.append(list);
}

function applyContext(ctx: McpUiHostContext | undefined, app: App) {
  if (!ctx) return;
  if (ctx.theme) applyDocumentTheme(ctx.theme);
  if (ctx.styles?.variables) applyHostStyleVariables(ctx.styles.variables);
  if (ctx.locale) {
    const zh = ctx.locale.toLowerCase().startsWith("zh");
    state.t = zh ? STRINGS.zh : STRINGS.en;
    document.documentElement.lang = zh ? "zh" : "en";
    document.title = state.t.sources;
    render(app);
  }
}

function isResults(v: unknown): v is { results: SearchResult[] } {
  return !!v && typeof v === "object" && Array.isArray((v as { results?: unknown }).results);
}

async function main() {
  const app = new App({ name: "knowledge-base-citations", version: "1.0.0" }, {});
  // Handlers before connect, so no notification is missed.
  app.ontoolinput = ({ arguments: args }) => {
    const q = args?.query;
    state.query = typeof q === "string" ? q : undefined;
    render(app);
  };
  app.ontoolresult = (result) => {
    if (result.isError) state.status = "failed";
    state.results = !result.isError && isResults(result.structuredContent) ? result.structuredContent.results : undefined;
    if (!state.results && !result.isError) state.results = [];
    render(app);
  };
  app.ontoolcancelled = () => {
    state.status = "cancelled";
    render(app);
  };
  app.onhostcontextchanged = (ctx) => applyContext(ctx, app);
  render(app);
  await app.connect();
  applyContext(app.getHostContext(), app);
}

void main();
