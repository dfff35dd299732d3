// The parse worker's bundle, dist/workers/parse.mjs (lib/parse/pool.ts runs it): made by `npm run build`
// (scripts/build-workers.mjs) and by Vitest's global setup before the tests, so tests run the worker as the server
// does and never an older bundle. Dependencies stay in node_modules (found from dist/workers/).
import path from "node:path";
import { build } from "esbuild";

export async function bundleParseWorker() {
  await build({
    absWorkingDir: path.resolve(import.meta.dirname, ".."),
    entryPoints: { parse: "lib/parse/worker.ts" },
    outdir: "dist/workers",
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    packages: "external",
    tsconfig: "tsconfig.json",
    logLevel: "warning",
  });
}
