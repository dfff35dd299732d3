import { availableParallelism } from "node:os";
import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    include: ["lib/**/*.test.ts", "mcp/**/*.test.ts", "scripts/**/*.test.ts", "components/**/*.test.ts"],
    environment: "node",
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Most files wait on I/O (servers, LanceDB's background work, timers): one file more than there are cores keeps
    // the CPUs busy, where Vitest's default (cores - 1) ran one file at a time on 2 cores.
    maxWorkers: availableParallelism() + 1,
    // Servers made from the environment treat this machine as the owner, as the e2e servers do (docs/security.md).
    env: { LOCAL_OWNER: "1" },
  },
});
