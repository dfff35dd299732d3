// The parse worker's bundle, dist/workers/parse.mjs (lib/parse/pool.ts runs it): made by `npm run build`
// (scripts/build-workers.mjs) and by Vitest's global setup before the tests, so tests run the worker as the server
// does and never an older bundle. Dependencies stay in node_modules (found from dist/workers/).
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { build } from "esbuild";

export async function bundleParseWorker() {
  const root = path.resolve(import.meta.dirname, "..");
  const { outputFiles } = await build({
    absWorkingDir: root,
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
    write: false,
  });
  for (const file of outputFiles) {
    // Two Vitest runs (the test command's main and loaded ones) set up at once, and workers may be reading the file:
    // it is replaced whole (a rename), and only when it changed.
    let current = null;
    try {
      current = readFileSync(file.path);
    } catch {
      // not made yet
    }
    if (current?.equals(file.contents)) continue;
    mkdirSync(path.dirname(file.path), { recursive: true });
    const temp = `${file.path}.${process.pid}.tmp`;
    writeFileSync(temp, file.contents);
    renameSync(temp, file.path);
  }
}
