import { availableParallelism } from "node:os";
import path from "node:path";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The files that take longest (seconds of file time in a whole run on 2 cores), longest first. They start first, so
 * that no long file starts last and runs alone at the end: without a cache of earlier runs (a fresh clone) Vitest
 * orders files by size, and the longest files are not the largest.
 */
const LONGEST_FIRST = [
  "lib/parse/ocr.test.ts",
  "lib/server/sources-limits.test.ts",
  "lib/retrieve/store.test.ts",
  "lib/ingest/store-disk-bound.test.ts",
  "lib/admin/sources.test.ts",
  "lib/retrieve/store-scale.test.ts",
  "scripts/eval-chat/harness.test.ts",
  "scripts/ask.test.ts",
  "scripts/faq.test.ts",
  "lib/parse/libreoffice.test.ts",
  "scripts/entry-checks.test.ts",
  "lib/retrieve/ablation.test.ts",
];

class LongestFirst extends BaseSequencer {
  async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = LONGEST_FIRST.indexOf(path.relative(f.project.config.root, f.moduleId));
      return i === -1 ? LONGEST_FIRST.length : i;
    };
    // Array.sort is stable: the other files keep Vitest's order after these.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    include: ["lib/**/*.test.ts", "mcp/**/*.test.ts", "scripts/**/*.test.ts", "components/**/*.test.ts"],
    environment: "node",
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // A worker keeps the modules it imported from one file to the next; vitest.setup.ts resets the process state.
    isolate: false,
    setupFiles: ["vitest.setup.ts"],
    globalSetup: ["vitest.global-setup.ts"],
    // Most files wait on I/O (servers, LanceDB's background work, timers): one file more than there are cores keeps
    // the CPUs busy, where Vitest's default (cores - 1) ran one file at a time on 2 cores.
    maxWorkers: availableParallelism() + 1,
    sequence: { sequencer: LongestFirst },
    // Servers made from the environment treat this machine as the owner, as the e2e servers do (docs/security.md).
    env: { LOCAL_OWNER: "1" },
  },
});
