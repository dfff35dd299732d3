#!/usr/bin/env node
// Bundles the worker-thread entries (lib/*/worker.ts) into dist/workers/*.mjs: Next.js bundles route
// handlers, so a worker needs a real JS file at run time. Dependencies stay in node_modules. Then the MCP Apps
// views' browser scripts into dist/views/*.js (lib/apps/bundle.ts; Node runs that .ts file by stripping its types).
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { bundleParseWorker } from "./parse-worker-bundle.mjs";

await bundleParseWorker();
console.log("built dist/workers/parse.mjs");

// The MCP Apps views' scripts (inlined into their ui:// resources' HTML), so a request never waits for a bundle.
const { VIEW_ENTRIES, builtViewFile, bundleView } = await import("../lib/apps/bundle.ts");
for (const name of Object.keys(VIEW_ENTRIES)) {
  const file = builtViewFile(process.cwd(), name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, await bundleView(process.cwd(), name));
  console.log(`built ${path.relative(process.cwd(), file)}`);
}
