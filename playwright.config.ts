import { defineConfig, devices } from "@playwright/test";

/**
 * End-to-end and HTTP integration tests against the real, built Next.js server.
 * Servers (all on loopback):
 *   3199  fake OpenAI-compatible LLM (e2e/fixtures/fake-openai.ts), records every request it gets
 *   3100  the app on embedded defaults (offline embedder + offline answerer), knowledge/ indexed
 *   3101  the app with OPENAI_BASE_URL pointing at the fake LLM
 *   3102  the app with OPENAI_BASE_URL pointing at a closed port (model-unreachable errors)
 *   3103  the app with REQUIRE_TOKEN=1, ADMIN_TOKEN and a low MCP rate limit (access control)
 * Every app server runs through server.mjs, the same entry as `npm start`. Run `npm run build` first (npm test does).
 */
// The app servers here, and those specs start (they inherit this environment), treat a bare loopback request as
// the owner; a spec about the default (the owner link, e2e/owner-link.spec.ts) unsets it.
process.env.LOCAL_OWNER ??= "1";
// TEST_DATA_DIR and E2E_PORT_BASE let several checkouts run the suite side by side.
const DATA = process.env.TEST_DATA_DIR || ".test-data";
const BASE = Number(process.env.E2E_PORT_BASE || 3100);
// Sources (e2e/sources.spec.ts) crawl sites and repositories the tests serve on loopback, without pauses.
const common = {
  KNOWLEDGE_DIR: "knowledge",
  NEXT_TELEMETRY_DISABLED: "1",
  SOURCE_ALLOW_HOSTS: "127.0.0.1",
  SOURCE_WEB_DELAY_MS: "0",
  SOURCE_SECRET_KEY: "e2e-source-secret-key-0123456789",
};

export const PORTS = { fakeLlm: BASE + 99, offline: BASE, llm: BASE + 1, unreachable: BASE + 2, secure: BASE + 3 } as const;
/** Ports the sources spec serves its web site and Git repository on. */
export const SOURCE_PORTS = { site: BASE + 60, git: BASE + 61 } as const;
/** The secured app's management secret and MCP requests per minute per token. */
export const SECURE = { adminToken: "e2e-admin-secret", rateLimit: 20 } as const;
/** Where the "model unreachable" app looks for its model: a loopback port nothing listens on. */
export const CLOSED_MODEL_URL = "http://127.0.0.1:9/v1";

/** The app through server.mjs on the port and data dir named `name`, with `env` over the common settings. */
function appServer(name: Exclude<keyof typeof PORTS, "fakeLlm">, env: Record<string, string>) {
  return {
    command: `node server.mjs -p ${PORTS[name]} -H 127.0.0.1`,
    url: `http://127.0.0.1:${PORTS[name]}/api/health`,
    env: { ...common, DATA_DIR: `${DATA}/${name}`, ...env, PORT: String(PORTS[name]) },
    reuseExistingServer: false,
    timeout: 180_000,
  };
}

export default defineConfig({
  testDir: "e2e",
  testMatch: /.*\.(spec|e2e)\.ts$/,
  fullyParallel: false,
  workers: 1,
  timeout: 90_000,
  expect: { timeout: 20_000 },
  retries: 0,
  reporter: [["list"], ["json", { outputFile: `${DATA}/playwright.json` }]],
  use: {
    baseURL: `http://127.0.0.1:${PORTS.offline}`,
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
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
  },
  projects: [{ name: "chromium", use: { ...devices["Desktop Chrome"], channel: undefined } }],
  webServer: [
    {
      command: `npx tsx e2e/fixtures/fake-openai.ts --port ${PORTS.fakeLlm}`,
      url: `http://127.0.0.1:${PORTS.fakeLlm}/health`,
      reuseExistingServer: false,
      timeout: 60_000,
    },
    appServer("offline", { OPENAI_API_KEY: "" }),
    appServer("llm", { OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: `http://127.0.0.1:${PORTS.fakeLlm}/v1`, CHAT_MODEL: "fake-model" }),
    appServer("unreachable", { OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: CLOSED_MODEL_URL, CHAT_MODEL: "fake-model" }),
    appServer("secure", {
      OPENAI_API_KEY: "",
      REQUIRE_TOKEN: "1",
      ADMIN_TOKEN: SECURE.adminToken,
      MCP_RATE_LIMIT: String(SECURE.rateLimit),
      // Tests send wrong tokens on purpose; the failed-authentication limit has its own tests.
      AUTH_FAILURE_LIMIT: "1000",
    }),
  ],
});
