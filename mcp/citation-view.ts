import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from "@modelcontextprotocol/ext-apps/server";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { builtViewFile, bundleView } from "@/lib/apps/bundle";
import { appDir, publicBaseUrl } from "@/lib/config";

/**
 * The MCP Apps citation view (`ui://`): a host with the Apps extension renders the search tools' results in it
 * as source cards (lib/apps/citation-view.ts); a host without it ignores the tools' `_meta.ui` and shows the
 * text content as before. One self-contained HTML document: inline script and style, nothing loaded.
 */
const name = "citation_view";
const uri = "ui://knowledge-base/citations.html";
const mimeType = RESOURCE_MIME_TYPE;

const config = {
  title: "Search results as source cards",
  description:
    "MCP Apps view of the search tools' results: one card per passage with its document, heading path, the " +
    "sentences that match the query highlighted, the surrounding text and a link to the passage in the app.",
  mimeType,
  _meta: { ui: { csp: {}, prefersBorder: true } },
};

/** What a tool declares to be shown in this view (the legacy flat key too, as ext-apps' registerAppTool does). */
export const toolMeta = { ui: { resourceUri: uri }, [RESOURCE_URI_META_KEY]: uri };

let script: Promise<{ js: string; hash: string }> | undefined;

/**
 * The view's script and its CSP hash: the bundle `npm run build` wrote, else bundled now (tests, `next dev`);
 * once per process.
 */
function viewScript(): Promise<{ js: string; hash: string }> {
  if (!script) {
    const built = builtViewFile(appDir(), "citation-view");
    script = (
      !process.env.VITEST && existsSync(/*turbopackIgnore: true*/ built)
        ? readFile(/*turbopackIgnore: true*/ built, "utf8")
        : bundleView(appDir(), "citation-view")
    ).then(
      (js) => ({ js, hash: createHash("sha256").update(js).digest("base64") }),
      (err) => {
        script = undefined;
        throw err;
      },
    );
  }
  return script;
}

const escapeAttr = (s: string) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

const STYLE = `
:root{color-scheme:light dark;--bg:var(--color-background-primary,#fff);--fg:var(--color-text-primary,#18181b);
--muted:var(--color-text-secondary,#52525b);--border:var(--color-border-primary,#d4d4d8);--card:var(--color-background-secondary,#fafafa);
--link:#1e40af;--mark:#fde68a;--badge:#1d4ed8;font-family:var(--font-sans,system-ui,-apple-system,"Segoe UI","PingFang SC","Microsoft YaHei",sans-serif)}
:root[data-theme=dark]{--bg:var(--color-background-primary,#18181b);--fg:var(--color-text-primary,#f4f4f5);--muted:var(--color-text-secondary,#a1a1aa);
--border:var(--color-border-primary,#3f3f46);--card:var(--color-background-secondary,#27272a);--link:#93c5fd;--mark:#854d0e}
@media (prefers-color-scheme:dark){:root:not([data-theme]){--bg:#18181b;--fg:#f4f4f5;--muted:#a1a1aa;--border:#3f3f46;--card:#27272a;--link:#93c5fd;--mark:#854d0e}}
*{box-sizing:border-box}
body{margin:0;padding:12px;background:var(--bg);color:var(--fg);font-size:14px;line-height:1.5}
.heading{font-size:15px;margin:0 0 8px;font-weight:600}
.status{color:var(--muted);margin:0}
.cards{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:10px}
.card{border:1px solid var(--border);border-radius:8px;padding:10px 12px;background:var(--card)}
.head{display:flex;align-items:baseline;gap:8px}
.n{display:inline-flex;min-width:20px;height:20px;align-items:center;justify-content:center;border-radius:10px;background:var(--badge);color:#fff;font-size:11px;font-weight:600;padding:0 6px;flex-shrink:0}
.title{font-size:14px;font-weight:600;margin:0;overflow-wrap:anywhere}
.badge{font-size:11px;border:1px solid var(--border);border-radius:4px;padding:0 4px;color:var(--muted)}
.path{margin:2px 0 0;font-size:12px;color:var(--muted)}
.text,.ctx-passage{margin:8px 0 0;white-space:pre-wrap;overflow-wrap:anywhere}
mark{background:var(--mark);color:inherit;border-radius:2px;padding:0 2px}
.context{margin-top:6px;font-size:13px}
.context summary{cursor:pointer;color:var(--link)}
.ctx{color:var(--muted)}
.foot{display:flex;justify-content:space-between;gap:8px;margin-top:8px;font-size:12px;color:var(--muted)}
.source{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.open{color:var(--link);font-weight:500;flex-shrink:0}
a:focus-visible,summary:focus-visible{outline:2px solid var(--link);outline-offset:2px}
.sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
`;

/**
 * The view's HTML. The Content-Security-Policy allows nothing but this page's own script (by hash) and inline
 * style (a host may inject its fonts and style variables); no network, frames, forms or base URL.
 */
async function citationViewHtml(baseUrl = publicBaseUrl()): Promise<string> {
  const { js, hash } = await viewScript();
  const csp = [
    "default-src 'none'",
    `script-src 'sha256-${hash}'`,
    "style-src 'unsafe-inline'",
    "img-src data:",
    "font-src data:",
    "connect-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="kb-app-url" content="${escapeAttr(baseUrl)}">
<title>Sources</title>
<style>${STYLE}</style>
</head>
<body>
<main id="root" aria-live="polite"></main>
<script>${js}</script>
</body>
</html>
`;
}

export function registerCitationView(server: McpServer) {
  server.registerResource(name, uri, config, async () => ({
    contents: [{ uri, mimeType, text: await citationViewHtml(), _meta: config._meta }],
  }));
}
