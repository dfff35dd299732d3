/**
 * The app servers of the end-to-end tests, one set per Playwright worker. Worker `w` owns the 100 ports from
 * E2E_PORT_BASE + 100·w and the data folder TEST_DATA_DIR/w<w>, so specs on different workers share neither ports
 * nor stored state. e2e/helpers/start-server-sets.ts starts every set before the first test; a spec reaches its worker's set
 * through e2e/helpers/servers.ts. Offsets in a worker's block:
 *   +0   the app on embedded defaults (offline embedder + offline answerer), knowledge/ indexed
 *   +1   the app with OPENAI_BASE_URL pointing at the fake LLM
 *   +2   the app with OPENAI_BASE_URL pointing at a closed port (model-unreachable errors)
 *   +3   the app with REQUIRE_TOKEN=1, ADMIN_TOKEN and a low MCP rate limit (access control)
 *   +99  the fake OpenAI-compatible LLM (e2e/fixtures/fake-openai.ts), which records every request it gets
 * The ports between are for servers a spec starts itself (PORT_BASE + n in servers.ts).
 */
import path from "node:path";

/**
 * Workers, and so server sets. Two on the 2-core machine the suite is timed on: the specs wait on servers and the
 * browser much of the time. A set holds about 2.3 GB resident (four apps of 450–600 MB and the fake LLM).
 */
export const WORKERS = 2;

const PORT_BASE = Number(process.env.E2E_PORT_BASE || 3100);
/** The folder every set's data folder sits in. */
export const DATA_ROOT = path.resolve(process.env.TEST_DATA_DIR || ".test-data");

/** The secured app's management secret and MCP requests per minute per token. */
export const SECURE = { adminToken: "e2e-admin-secret", rateLimit: 20 } as const;
/** Where the "model unreachable" app looks for its model: a loopback port nothing listens on. */
export const CLOSED_MODEL_URL = "http://127.0.0.1:9/v1";

type AppName = "offline" | "llm" | "unreachable" | "secure";

export interface ServerSet {
  /** First port of the worker's block of 100. */
  portBase: number;
  ports: Record<AppName | "fakeLlm", number>;
  /** The worker's data folder; each app's data is in `<dataDir>/<app name>`. */
  dataDir: string;
}

export function serverSet(worker: number): ServerSet {
  const portBase = PORT_BASE + 100 * worker;
  return {
    portBase,
    ports: { offline: portBase, llm: portBase + 1, unreachable: portBase + 2, secure: portBase + 3, fakeLlm: portBase + 99 },
    dataDir: path.join(DATA_ROOT, `w${worker}`),
  };
}

// Sources (e2e/sources.spec.ts) crawl sites and repositories the tests serve on loopback, without pauses.
const common = {
  KNOWLEDGE_DIR: "knowledge",
  NEXT_TELEMETRY_DISABLED: "1",
  SOURCE_ALLOW_HOSTS: "127.0.0.1",
  SOURCE_WEB_DELAY_MS: "0",
  SOURCE_SECRET_KEY: "e2e-source-secret-key-0123456789",
};

/** The environment of each app of a set, over the common settings. */
function appEnv(set: ServerSet): Record<AppName, Record<string, string>> {
  const fakeModel = `http://127.0.0.1:${set.ports.fakeLlm}/v1`;
  return {
    offline: { OPENAI_API_KEY: "" },
    llm: { OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: fakeModel, CHAT_MODEL: "fake-model" },
    unreachable: { OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: CLOSED_MODEL_URL, CHAT_MODEL: "fake-model" },
    secure: {
      OPENAI_API_KEY: "",
      REQUIRE_TOKEN: "1",
      ADMIN_TOKEN: SECURE.adminToken,
      MCP_RATE_LIMIT: String(SECURE.rateLimit),
      // Tests send wrong tokens on purpose; the failed-authentication limit has its own tests.
      AUTH_FAILURE_LIMIT: "1000",
    },
  };
}

export interface ServerCommand {
  name: string;
  command: string[];
  env: Record<string, string>;
  /** Answers 200 once the server is ready. */
  url: string;
  timeoutMs: number;
}

// All sets start at once, on a machine that may be busy: a server gets ten minutes to index knowledge/ and answer.
const START_TIMEOUT_MS = 600_000;

/** Every worker's set: the fake LLM, and each app through server.mjs (the `npm start` entry). */
export function serverCommands(): ServerCommand[] {
  return Array.from({ length: WORKERS }, (_, worker) => {
    const set = serverSet(worker);
    const apps = Object.entries(appEnv(set)).map(([name, env]) => {
      const port = set.ports[name as AppName];
      return {
        name: `w${worker} ${name}`,
        command: [process.execPath, "server.mjs", "-p", String(port), "-H", "127.0.0.1"],
        url: `http://127.0.0.1:${port}/api/health`,
        env: { ...common, DATA_DIR: path.join(set.dataDir, name), ...env, PORT: String(port) },
        timeoutMs: START_TIMEOUT_MS,
      };
    });
    const fake = {
      name: `w${worker} fake LLM`,
      command: ["npx", "tsx", "e2e/fixtures/fake-openai.ts", "--port", String(set.ports.fakeLlm)],
      url: `http://127.0.0.1:${set.ports.fakeLlm}/health`,
      env: {},
      timeoutMs: START_TIMEOUT_MS,
    };
    return [fake, ...apps];
  }).flat();
}
