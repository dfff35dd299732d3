import { defineConfig, devices } from "@playwright/test";

import { CHROMIUM_PATH } from "./e2e/helpers/chromium";
import { DATA_ROOT, WORKERS } from "./e2e/helpers/server-sets";

/**
 * End-to-end and HTTP integration tests against the real, built Next.js server, spec files on WORKERS workers at
 * once. Each worker has a set of app servers of its own, with their own ports and data (e2e/helpers/server-sets.ts
 * lists them, e2e/helpers/start-server-sets.ts starts them all before the first test); a spec reaches its worker's set through e2e/helpers/servers.ts. Every app server runs through
 * server.mjs, the same entry as `npm start`. Run `npm run build` first (npm test does).
 */
// The app servers here, and those specs start (they inherit this environment), treat a bare loopback request as
// the owner; a spec about the default (the owner link, e2e/owner-link.spec.ts) unsets it.
process.env.LOCAL_OWNER ??= "1";

/**
 * The spec files that take longest (test time on 2 cores), longest first. Playwright hands files to free workers in
 * name order, so a long file late in the alphabet started last and ran alone at the end; these go first, in a
 * project of their own (the same browser and settings), and the rest follow.
 */
const LONGEST_FIRST = [
  "a11y",
  "return-paths",
  "accounts",
  "upload-limits",
  "sources",
  "export-share",
  "overview",
  "formats",
  "citation-view",
];
const longFiles = new RegExp(`/e2e/(${LONGEST_FIRST.join("|")})\\.spec\\.ts$`);
const browser = { ...devices["Desktop Chrome"], channel: undefined };

export default defineConfig({
  testDir: "e2e",
  testMatch: /.*\.(spec|e2e)\.ts$/,
  // A spec file's tests run in order on one worker; files run on WORKERS workers, each on its own server set.
  fullyParallel: false,
  workers: WORKERS,
  timeout: 90_000,
  expect: { timeout: 20_000 },
  retries: 0,
  reporter: [["list"], ["json", { outputFile: `${DATA_ROOT}/playwright.json` }]],
  use: {
    // No baseURL here: `test` from e2e/helpers/servers.ts sets the worker's own.
    launchOptions: {
      executablePath: CHROMIUM_PATH,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
    trace: "off",
    // Bounded, so a wait that never ends (an event, a navigation) fails where it waits, not as the test's timeout.
    actionTimeout: 60_000,
    navigationTimeout: 60_000,
  },
  projects: [
    { name: "chromium", testMatch: longFiles, use: browser },
    { name: "chromium-rest", testIgnore: longFiles, use: browser },
  ],
  // Every worker's server set, started at once.
  globalSetup: "./e2e/helpers/start-server-sets.ts",
});
