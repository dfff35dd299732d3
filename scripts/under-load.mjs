#!/usr/bin/env node
// Runs a command while busy loops hold every core twice over, as on a CI machine shared with other work: budgets
// must make a task slower there, never stop it. `node scripts/under-load.mjs <vitest args>` runs Vitest;
// `node scripts/under-load.mjs -- <command…>` runs any command (`-- bash scripts/test.sh`: the whole test command).
// Each loop ends by itself after 15 minutes (Vitest) or 120 (any command: the whole test command under load takes
// longer) even if this script is killed.
import { spawn, spawnSync } from "node:child_process";
import { availableParallelism } from "node:os";

const args = process.argv.slice(2);
const anyCommand = args[0] === "--";
const [cmd, ...cmdArgs] = anyCommand ? args.slice(1) : ["npx", "vitest", "run", ...args];
const LOOP_MAX_MS = (anyCommand ? 120 : 15) * 60_000;
const loops = Array.from({ length: 2 * availableParallelism() }, () =>
  spawn(process.execPath, ["-e", `const end = Date.now() + ${LOOP_MAX_MS}; while (Date.now() < end);`], { stdio: "ignore" }),
);
let status = 1;
const start = Date.now();
try {
  console.log(`${loops.length} busy loops on ${availableParallelism()} cores`);
  status = spawnSync(cmd, cmdArgs, { stdio: "inherit" }).status ?? 1;
} finally {
  for (const loop of loops) loop.kill("SIGKILL");
}
console.log(`under load: ${cmd} ${cmdArgs.join(" ")} ended with status ${status} after ${((Date.now() - start) / 60_000).toFixed(1)} min`);
process.exit(status);
