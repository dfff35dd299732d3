/**
 * How a spec reaches its servers: the set of the Playwright worker it runs on (e2e/helpers/server-sets.ts), and
 * `test`, whose `page` and `request` resolve relative URLs against that set's offline app. Import `test` and
 * `expect` from here, not from @playwright/test; take ports from PORTS, a spec's own servers' ports from
 * PORT_BASE + n and its own data folders under WORKER_DATA_DIR, so that specs on different workers never meet.
 */

import path from "node:path";
import { test as base } from "@playwright/test";
import { DATA_ROOT, type ServerSet, serverSet, WORKERS } from "./server-sets";

export { expect } from "@playwright/test";
export { CLOSED_MODEL_URL, SECURE } from "./server-sets";

/**
 * The set of the worker this file is loaded in. Playwright also loads spec files once in its runner process to list
 * the tests, outside any worker: there the ports are NaN, so a URL built from them cannot reach anything.
 */
function workerSet(): ServerSet {
  const index = process.env.TEST_PARALLEL_INDEX;
  if (index === undefined) {
    const none = Number.NaN;
    return {
      portBase: none,
      ports: { offline: none, llm: none, unreachable: none, secure: none, fakeLlm: none },
      dataDir: path.join(DATA_ROOT, "outside-a-worker"),
    };
  }
  if (Number(index) >= WORKERS) {
    throw new Error(`e2e/helpers/server-sets.ts starts server sets for ${WORKERS} workers; run with --workers=${WORKERS} or fewer`);
  }
  return serverSet(Number(index));
}

const set = workerSet();

/** This worker's app servers and fake LLM. */
export const PORTS = set.ports;
/** First port of this worker's block of 100; a spec's own servers listen on PORT_BASE + n, n in 4–98. */
export const PORT_BASE = set.portBase;
/** This worker's data folder: the apps' data is in WORKER_DATA_DIR/<app>, a spec's own servers keep theirs in a folder of their own beside. */
export const WORKER_DATA_DIR = set.dataDir;
/** The servers the sources spec serves: a web site, a Git repository, WebDAV (Apache), IMAP (Dovecot), a wiki (MediaWiki) and the hosted services' contract servers. */
export const SOURCE_PORTS = {
  site: PORT_BASE + 60,
  git: PORT_BASE + 61,
  dav: PORT_BASE + 62,
  imap: PORT_BASE + 63,
  wiki: PORT_BASE + 64,
  notion: PORT_BASE + 65,
} as const;

export const test = base.extend({ baseURL: `http://127.0.0.1:${PORTS.offline}` });
