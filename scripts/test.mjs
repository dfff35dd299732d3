#!/usr/bin/env node
// The one test command: the quality gates (Biome lint + format, knip unused code, dpdm import cycles, tsc),
// unit + store tests (Vitest), a production build, then HTTP integration and browser tests (Playwright)
// against the real server. Ends with one "N passed, N failed" line; each gate counts as one check.
// `--gates-only` runs just the gates, with the same summary line and exit status.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";

const DATA = process.env.TEST_DATA_DIR || ".test-data";
rmSync(DATA, { recursive: true, force: true });
mkdirSync(DATA, { recursive: true });

const tally = { passed: 0, failed: 0, skipped: 0 };

function run(cmd, args, env = {}) {
  console.log(`\n$ ${cmd} ${args.join(" ")}`);
  const r = spawnSync(cmd, args, { stdio: "inherit", env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...env } });
  return r.status ?? 1;
}

/** Adds a runner's counts from its JSON report; a runner that failed without reporting a failure still fails the run. */
function count(status, counts) {
  const before = tally.failed;
  if (counts) {
    tally.passed += counts.passed;
    tally.failed += counts.failed;
    tally.skipped += counts.skipped;
  }
  if (status !== 0 && tally.failed === before) tally.failed += 1;
}

function readJson(file) {
  return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : null;
}

const failedGates = [];
for (const gate of ["lint", "unused", "cycles", "typecheck"]) {
  if (run("npm", ["run", "--silent", gate]) === 0) tally.passed += 1;
  else failedGates.push(gate);
}
tally.failed += failedGates.length;

if (!process.argv.includes("--gates-only")) {
  const vitestStatus = run("npx", ["vitest", "run", "--reporter=default", "--reporter=json", `--outputFile=${DATA}/vitest.json`]);
  const v = readJson(`${DATA}/vitest.json`);
  count(vitestStatus, v && { passed: v.numPassedTests, failed: v.numFailedTests, skipped: v.numPendingTests + v.numTodoTests });

  if (run("npm", ["run", "build"]) !== 0) {
    tally.failed += 1;
  } else {
    const pwStatus = run("npx", ["playwright", "test"]);
    const s = readJson(`${DATA}/playwright.json`)?.stats;
    count(pwStatus, s && { passed: s.expected, failed: s.unexpected + s.flaky, skipped: s.skipped });
  }
}

if (failedGates.length) console.log(`\nFailed gates: ${failedGates.join(", ")} (run \`npm run <gate>\` to see why)`);
console.log(`\n${tally.passed} passed, ${tally.failed} failed${tally.skipped ? `, ${tally.skipped} skipped` : ""}`);
process.exit(tally.failed > 0 ? 1 : 0);
