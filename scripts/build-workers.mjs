#!/usr/bin/env node
// Bundles the worker-thread entries (lib/*/worker.ts) into dist/workers/*.mjs: Next.js bundles route
// handlers, so a worker needs a real JS file at run time. Dependencies stay in node_modules.
import { build } from "esbuild";

await build({
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
console.log("built dist/workers/parse.mjs");
