#!/usr/bin/env node
// The one test command: the quality gates (Biome lint + format, knip unused code, dpdm import cycles, tsc),
// unit + store tests (Vitest), a production build, then HTTP integration and browser tests (Playwright)
// against the real server. Ends with one "N passed, N failed" line; each gate counts as one check.
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, mkdirSync, existsSync } from "node:fs";

const DATA = process.env.TEST_DATA_DIR || ".test-data";
rmSync(DATA, { recursive: true, force: true });
mkdirSync(DATA, { recursive: true });

function run(cmd, args, env = {}) {
  console.log(`\n$ ${cmd} ${args.join(" ")}`);
  const r = spawnSync(cmd, args, { stdio: "inherit", env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...env } });
  return r.status ?? 1;
}

let passed = 0;
let failed = 0;
let skipped = 0;

const GATES = ["lint", "unused", "cycles", "typecheck"];
const failedGates = [];
for (const gate of GATES) {
  if (run("npm", ["run", "--silent", gate]) === 0) passed += 1;
  else failedGates.push(gate);
}
failed += failedGates.length;

const vitestStatus = run("npx", ["vitest", "run", "--reporter=default", "--reporter=json", `--outputFile=${DATA}/vitest.json`]);
if (existsSync(`${DATA}/vitest.json`)) {
  const v = JSON.parse(readFileSync(`${DATA}/vitest.json`, "utf8"));
  passed += v.numPassedTests;
  failed += v.numFailedTests;
  skipped += v.numPendingTests + v.numTodoTests;
}
if (vitestStatus !== 0 && failed === 0) failed += 1; // a crash before any test ran still fails the run

const buildStatus = run("npm", ["run", "build"]);
if (buildStatus !== 0) {
  failed += 1;
} else {
  const pwStatus = run("npx", ["playwright", "test"]);
  if (existsSync(`${DATA}/playwright.json`)) {
    const s = JSON.parse(readFileSync(`${DATA}/playwright.json`, "utf8")).stats;
    passed += s.expected;
    failed += s.unexpected + s.flaky;
    skipped += s.skipped;
  }
  if (pwStatus !== 0 && failed === 0) failed += 1;
}

if (failedGates.length) console.log(`\nFailed gates: ${failedGates.join(", ")} (run \`npm run <gate>\` to see why)`);
console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failed > 0 ? 1 : 0);
