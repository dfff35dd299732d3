#!/usr/bin/env node
// The one test command: the quality gates (Biome lint + format, knip unused code, dpdm import cycles, the lib/ layer order, tsc),
// unit + store tests (Vitest), the worker-pool and OCR budget tests with every core busy instead
// (scripts/under-load.mjs), a production build, then HTTP integration and browser tests (Playwright)
// against the real server. Ends with one "N passed, N failed" line; each gate counts as one check.
// `--gates-only` runs just the gates, with the same summary line and exit status.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { stripVTControlCharacters } from "node:util";

const DATA = process.env.TEST_DATA_DIR || ".test-data";
rmSync(DATA, { recursive: true, force: true });
mkdirSync(DATA, { recursive: true });

/** Tests run with every core busy (scripts/under-load.mjs), instead of in the main Vitest run: the files, and a name pattern. */
const LOADED_FILES = ["lib/worker/pool.test.ts", "lib/parse/ocr.test.ts"];
const LOADED_TESTS = "worker pool|OCR_FILE_TIMEOUT_SECONDS";

const tally = { passed: 0, failed: 0, skipped: 0 };
/** Names and first error lines of what failed, repeated at the end so a log's tail says what broke. */
const failures = [];

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

const firstLine = (text) =>
  stripVTControlCharacters(String(text ?? ""))
    .split("\n")
    .find((l) => l.trim()) ?? "";

function vitestFailures(report) {
  const out = [];
  for (const file of report?.testResults ?? []) {
    const name = path.relative(process.cwd(), file.name);
    const failed = (file.assertionResults ?? []).filter((t) => t.status === "failed");
    for (const t of failed) out.push(`vitest ${name}: ${t.fullName}: ${firstLine(t.failureMessages?.[0])}`);
    if (file.status === "failed" && failed.length === 0) out.push(`vitest ${name}: ${firstLine(file.message)}`);
  }
  return out;
}

function playwrightFailures(report) {
  const out = [];
  const walk = (suite) => {
    for (const spec of suite.specs ?? [])
      for (const t of spec.tests ?? [])
        if (t.status === "unexpected" || t.status === "flaky") {
          const error = t.results?.find((r) => r.error)?.error?.message;
          out.push(`playwright ${spec.file}:${spec.line} ${spec.title} (${t.status}): ${firstLine(error)}`);
        }
    for (const child of suite.suites ?? []) walk(child);
  };
  for (const suite of report?.suites ?? []) walk(suite);
  for (const e of report?.errors ?? []) out.push(`playwright: ${firstLine(e.message)}`);
  return out;
}

/** A runner that failed without naming a failed test still gets a line (an unhandled error, a crashed worker). */
function explained(runner, status, found) {
  if (status === 0 || found.length > 0) return found;
  return [`${runner} exited with status ${status} without naming a failed test: see its errors above`];
}

const failedGates = [];
for (const gate of ["lint", "unused", "cycles", "layers", "typecheck"]) {
  if (run("npm", ["run", "--silent", gate]) === 0) tally.passed += 1;
  else failedGates.push(gate);
}
tally.failed += failedGates.length;

if (!process.argv.includes("--gates-only")) {
  // The loaded stage below runs the worker-pool file and the OCR file-budget test: not twice.
  const vitestStatus = run("npx", [
    "vitest",
    "run",
    "--reporter=default",
    "--reporter=json",
    `--outputFile=${DATA}/vitest.json`,
    `--exclude=${LOADED_FILES[0]}`,
    "-t",
    `^(?!.*(${LOADED_TESTS}))`,
  ]);
  const v = readJson(`${DATA}/vitest.json`);
  failures.push(...explained("vitest", vitestStatus, vitestFailures(v)));
  count(vitestStatus, v && { passed: v.numPassedTests, failed: v.numFailedTests, skipped: v.numPendingTests + v.numTodoTests });

  // The worker-pool and OCR budget tests again, with every core busy: a loaded machine must not fail them.
  const loadedStatus = run("node", [
    "scripts/under-load.mjs",
    "--reporter=default",
    "--reporter=json",
    `--outputFile=${DATA}/vitest-loaded.json`,
    ...LOADED_FILES,
    "-t",
    LOADED_TESTS,
  ]);
  const loaded = readJson(`${DATA}/vitest-loaded.json`);
  failures.push(
    ...explained(
      "vitest (loaded)",
      loadedStatus,
      vitestFailures(loaded).map((f) => f.replace(/^vitest/, "vitest (loaded)")),
    ),
  );
  count(loadedStatus, loaded && { passed: loaded.numPassedTests, failed: loaded.numFailedTests, skipped: 0 });

  if (run("npm", ["run", "build"]) !== 0) {
    tally.failed += 1;
  } else {
    const pwStatus = run("npx", ["playwright", "test"]);
    const report = readJson(`${DATA}/playwright.json`);
    failures.push(...explained("playwright", pwStatus, playwrightFailures(report)));
    const s = report?.stats;
    count(pwStatus, s && { passed: s.expected, failed: s.unexpected + s.flaky, skipped: s.skipped });
  }
}

if (failures.length) console.log(`\nFailed tests:\n${failures.map((f) => `  ${f.slice(0, 400)}`).join("\n")}`);
if (failedGates.length) console.log(`\nFailed gates: ${failedGates.join(", ")} (run \`npm run <gate>\` to see why)`);
console.log(`\n${tally.passed} passed, ${tally.failed} failed${tally.skipped ? `, ${tally.skipped} skipped` : ""}`);
process.exit(tally.failed > 0 ? 1 : 0);
