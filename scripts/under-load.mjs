#!/usr/bin/env node
// Runs a command while busy loops hold every core twice over, as on a CI machine shared with other work: budgets
// must make a task slower there, never stop it. `node scripts/under-load.mjs <vitest args>` runs Vitest;
// `node scripts/under-load.mjs -- <command…>` runs any command (`-- bash scripts/test.sh`: the whole test command).
// `--fill-idle` first: the loops run at the lowest priority, for a command that runs beside other work (the test
// command's main Vitest run): they take only the CPU that work leaves, so every core stays busy without slowing it.
// Each loop ends by itself after 15 minutes (Vitest) or 120 (any command: the whole test command under load takes
// longer) even if this script is killed.
import { spawn, spawnSync } from "node:child_process";
import { availableParallelism, constants, setPriority } from "node:os";

const fillIdle = process.argv[2] === "--fill-idle";
const args = process.argv.slice(fillIdle ? 3 : 2);
const anyCommand = args[0] === "--";
const [cmd, ...cmdArgs] = anyCommand ? args.slice(1) : ["npx", "vitest", "run", ...args];
const LOOP_MAX_MS = (anyCommand ? 120 : 15) * 60_000;
const loops = Array.from({ length: 2 * availableParallelism() }, () =>
  spawn(process.execPath, ["-e", `const end = Date.now() + ${LOOP_MAX_MS}; while (Date.now() < end);`], { stdio: "ignore" }),
);
if (fillIdle) for (const loop of loops) setPriority(loop.pid, constants.priority.PRIORITY_LOW);
let status = 1;
const start = Date.now();
try {
  console.log(`${loops.length} busy loops${fillIdle ? " at the lowest priority" : ""} on ${availableParallelism()} cores`);
  status = spawnSync(cmd, cmdArgs, { stdio: "inherit" }).status ?? 1;
} finally {
  for (const loop of loops) loop.kill("SIGKILL");
}
console.log(`under load: ${cmd} ${cmdArgs.join(" ")} ended with status ${status} after ${((Date.now() - start) / 60_000).toFixed(1)} min`);
process.exit(status);
