/**
 * Bundles an MCP Apps view's browser script (its imports included) into one string, for inlining into the
 * view's self-contained HTML. `npm run build` writes the bundle to dist/views/ (scripts/build-workers.mjs);
 * without one (tests, `next dev`) the resource bundles it on first read. Plain Node: no path aliases here.
 */
import path from "node:path";

/** The views, by name: their entry files, relative to the app directory. */
export const VIEW_ENTRIES = { "citation-view": "lib/apps/citation-view.ts" } as const;
export type ViewName = keyof typeof VIEW_ENTRIES;

/** Where `npm run build` writes a view's bundle. */
export function builtViewFile(appDir: string, name: ViewName): string {
  return path.join(appDir, "dist", "views", `${name}.js`);
}

/** The view's script, minified, as one IIFE (an inline <script> can hold it). */
export async function bundleView(appDir: string, name: ViewName): Promise<string> {
  const { build } = await import("esbuild");
  const out = await build({
    absWorkingDir: appDir,
    entryPoints: [VIEW_ENTRIES[name]],
    bundle: true,
    write: false,
    platform: "browser",
    format: "iife",
    target: "es2022",
    minify: true,
    legalComments: "none",
    tsconfig: "tsconfig.json",
    logLevel: "warning",
    // The shared tokenizer reads import.meta.url only to load jieba (indexing), never in a view.
    define: { "import.meta.url": '"about:blank"' },
    plugins: [
      {
        // zod's error messages in English only: its ~40 other locales were half the bundle.
        name: "zod-english-only",
        setup(b) {
          b.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({
            contents: 'export { default as en } from "./en.js";',
            loader: "js",
            resolveDir: path.dirname(args.path),
          }));
        },
      },
      {
        // The shared tokenizer loads jieba through node:module, which a view never reaches.
        name: "no-node-builtins",
        setup(b) {
          b.onResolve({ filter: /^node:/ }, (args) => ({ path: args.path, namespace: "node-stub" }));
          b.onLoad({ filter: /.*/, namespace: "node-stub" }, () => ({
            contents: "export function createRequire() { throw new Error('not available in a view'); }",
            loader: "js",
          }));
        },
      },
    ],
  });
  // An inline script ends at the first "</script": escape it wherever the bundle has it (strings, regexes).
  return out.outputFiles[0].text.replace(/<\/(script)/gi, "<\\/$1");
}
