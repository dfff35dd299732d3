#!/usr/bin/env node
// The one test command: the quality gates (Biome lint + format, knip unused code, dpdm import cycles, the lib/ layer order, tsc),
// unit + store tests (Vitest), beside them the worker-pool and OCR budget tests with every core busy
// (scripts/under-load.mjs), a production build, then HTTP integration and browser tests (Playwright)
// against the real server. Ends with one "N passed, N failed" line; each gate counts as one check.
// The build runs beside the gates that do not read it; tsc runs after it, over the route types it generates
// (the build does not check types itself: next.config.ts). Tests keep their temporary folders in a folder of this run,
// which must be empty at the end. `--gates-only` runs just the gates, with the same summary line and exit status.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { stripVTControlCharacters } from "node:util";

const DATA = process.env.TEST_DATA_DIR || ".test-data";
rmSync(DATA, { recursive: true, force: true });
mkdirSync(DATA, { recursive: true });
/** os.tmpdir() of every test process: what a test leaves here fails the run. */
const TMP = path.resolve(DATA, "tmp");
mkdirSync(TMP);
const TEST_ENV = { TMPDIR: TMP };
/**
 * What a test makes there: a folder named as mkdtemp names it, a prefix ending in "-" and six characters. The caches
 * and files that tools and libraries keep there (Node's compile cache, tsx's, Playwright's transforms, Chromium's
 * profiles, LanceDB's) are not the tests' to remove.
 */
const TEST_FOLDER = /^[a-z][a-z0-9-]*-[A-Za-z0-9]{6}$/;

/** Tests run with every core busy (scripts/under-load.mjs), instead of in the main Vitest run: the files, and a name pattern. */
const LOADED_FILES = ["lib/worker/pool.test.ts", "lib/parse/ocr.test.ts"];
const LOADED_TESTS = "worker pool|OCR_FILE_TIMEOUT_SECONDS";

const tally = { passed: 0, failed: 0, skipped: 0 };
/** Names and first error lines of what failed, repeated at the end so a log's tail says what broke. */
const failures = [];

/**
 * Every Node process of the run (the build, tsc, Vitest's forks, Playwright's workers, the ~20 app servers) keeps V8's
 * code cache here: a process after the first skips compiling what an earlier one compiled (an app server's start
 * 9 → 7 CPU-s).
 */
const COMPILE_CACHE = path.resolve(DATA, "node-compile-cache");
const commandEnv = (env) => ({ ...process.env, NEXT_TELEMETRY_DISABLED: "1", NODE_COMPILE_CACHE: COMPILE_CACHE, ...env });

/** "stage N min" for each stage, printed at the end. */
const timings = [];
function timed(stage, fn) {
  const start = Date.now();
  const done = (result) => {
    timings.push(`${stage} ${((Date.now() - start) / 60_000).toFixed(1)} min`);
    return result;
  };
  const result = fn();
  return result instanceof Promise ? result.then(done) : done(result);
}

function run(cmd, args, env = {}) {
  console.log(`\n$ ${cmd} ${args.join(" ")}`);
  const r = spawnSync(cmd, args, { stdio: "inherit", env: commandEnv(env) });
  return r.status ?? 1;
}

/** Like run, without blocking: for a command with its output shown as it comes while another runs beside it. */
function runLive(cmd, args, env = {}) {
  console.log(`\n$ ${cmd} ${args.join(" ")}`);
  return new Promise((resolve) => {
    spawn(cmd, args, { stdio: "inherit", env: commandEnv(env) }).on("close", (code) => resolve(code ?? 1));
  });
}

/** Like run, beside other commands: the output is held and printed whole when the command ends. */
function runBeside(cmd, args, env = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env: commandEnv(env), stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("close", (code) => {
      console.log(`\n$ ${cmd} ${args.join(" ")}\n${out}`);
      resolve(code ?? 1);
    });
  });
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

const gatesOnly = process.argv.includes("--gates-only");
const failedGates = [];
async function gates(names) {
  for (const gate of names) {
    if ((await runBeside("npm", ["run", "--silent", gate])) === 0) tally.passed += 1;
    else failedGates.push(gate);
  }
}
/** The Vitest run (unit and store tests); the loaded stage below runs the worker-pool file and the OCR file-budget test: not twice. */
const vitestArgs = [
  "vitest",
  "run",
  "--reporter=default",
  "--reporter=json",
  `--outputFile=${DATA}/vitest.json`,
  `--exclude=${LOADED_FILES[0]}`,
  "-t",
  `^(?!.*(${LOADED_TESTS}))`,
];
// The build and the gates that do not read it share the cores; tsc then checks the build's route types too, beside
// Vitest. Vitest runs after the build: beside it (3 forks and Turbopack's threads on 2 cores) the build took 6.2 min
// instead of 1.6–1.8.
const [built] = await Promise.all([
  // In CI (a fresh clone each run) the build writes no Turbopack cache: nothing would read it again.
  gatesOnly ? null : timed("build", () => runBeside("npm", ["run", "build"], process.env.CI ? { NEXT_BUILD_CACHE: "0" } : {})),
  timed("gates", () => gates(["lint", "unused", "cycles", "layers"])),
]);
const typecheck = () => timed("typecheck", () => gates(["typecheck"]));
if (gatesOnly) await typecheck();

if (!gatesOnly) {
  // The worker-pool and OCR budget tests run beside the main Vitest run, which keeps every core busy (loops at the
  // lowest priority fill what it leaves): a loaded machine must not fail them. Their output is printed when they end.
  const [vitestStatus, loadedStatus] = await Promise.all([
    timed("vitest", () => runLive("npx", vitestArgs, TEST_ENV)),
    timed("vitest under load", () =>
      runBeside(
        "node",
        [
          "scripts/under-load.mjs",
          "--fill-idle",
          "--reporter=default",
          "--reporter=json",
          `--outputFile=${DATA}/vitest-loaded.json`,
          ...LOADED_FILES,
          "-t",
          LOADED_TESTS,
        ],
        TEST_ENV,
      ),
    ),
    typecheck(),
  ]);
  const v = readJson(`${DATA}/vitest.json`);
  failures.push(...explained("vitest", vitestStatus, vitestFailures(v)));
  count(vitestStatus, v && { passed: v.numPassedTests, failed: v.numFailedTests, skipped: v.numPendingTests + v.numTodoTests });

  const loaded = readJson(`${DATA}/vitest-loaded.json`);
  failures.push(
    ...explained(
      "vitest (loaded)",
      loadedStatus,
      vitestFailures(loaded).map((f) => f.replace(/^vitest/, "vitest (loaded)")),
    ),
  );
  count(loadedStatus, loaded && { passed: loaded.numPassedTests, failed: loaded.numFailedTests, skipped: 0 });

  if (built !== 0) {
    failures.push("npm run build failed: see its output above; the Playwright tests did not run");
    tally.failed += 1;
  } else {
    const pwStatus = timed("playwright", () => run("npx", ["playwright", "test"], TEST_ENV));
    const report = readJson(`${DATA}/playwright.json`);
    failures.push(...explained("playwright", pwStatus, playwrightFailures(report)));
    const s = report?.stats;
    count(pwStatus, s && { passed: s.expected, failed: s.unexpected + s.flaky, skipped: s.skipped });
  }

  // Every test removes the temporary folders it made (they pile up in /tmp otherwise).
  const left = readdirSync(TMP).filter((name) => TEST_FOLDER.test(name));
  if (left.length) {
    failures.push(`temporary folders left behind by the tests (in ${TMP}): ${left.join(", ")}`);
    tally.failed += 1;
  } else tally.passed += 1;
}

tally.failed += failedGates.length;
if (failures.length) console.log(`\nFailed tests:\n${failures.map((f) => `  ${f.slice(0, 400)}`).join("\n")}`);
if (failedGates.length) console.log(`\nFailed gates: ${failedGates.join(", ")} (run \`npm run <gate>\` to see why)`);
if (timings.length) console.log(`\nStages: ${timings.join(", ")}`);
console.log(`\n${tally.passed} passed, ${tally.failed} failed${tally.skipped ? `, ${tally.skipped} skipped` : ""}`);
process.exit(tally.failed > 0 ? 1 : 0);
