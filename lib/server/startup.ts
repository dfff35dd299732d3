/**
 * Start-up indexing of the knowledge folder, and the readiness that /api/health reports and the MCP tools
 * wait for. Kept on globalThis: Next may load this module in several bundles (instrumentation, each route)
 * of one process, and all of them must share one sync.
 */
import { existsSync } from "node:fs";
import { startSsoRecheck } from "@/lib/auth/accounts/sso-recheck";
import { ensureAdminSecret } from "@/lib/auth/admin-secret";
import { oidcEnabled } from "@/lib/auth/oidc";
import { getConfig } from "@/lib/config";
import { syncKnowledgeDir } from "@/lib/ingest";
import { getRegistry } from "@/lib/kb";
import { knownKbs } from "@/lib/kb/known";
import { reconcileSources } from "@/lib/sources/reconcile";
import { startSourceScheduler } from "@/lib/sources/scheduler";
import { getStore, type Store } from "@/lib/store";
import { removeStaleCgroups } from "@/lib/worker/memory-cap";

type SyncSummary = Awaited<ReturnType<typeof syncKnowledgeDir>>;

export type StartupState =
  | { status: "pending"; startedAt: string }
  | { status: "ready"; startedAt: string; finishedAt: string; knowledgeDir: string; summary: SyncSummary | null }
  | { status: "failed"; startedAt: string; finishedAt: string; error: string };

interface Startup {
  state: StartupState;
  done: Promise<void>;
}

const KEY = Symbol.for("kb-mcp-chat.startup");
type Global = typeof globalThis & { [KEY]?: Startup };

function summarize(dir: string, kb: string, s: SyncSummary, ms: number): string {
  const failed = s.failed.length ? ` (${s.failed.map((f) => `${f.file}: ${f.error}`).join("; ")})` : "";
  return (
    `[knowledge] synced ${dir} into kb "${kb}" in ${(ms / 1000).toFixed(1)}s: ${s.added} added, ${s.updated} updated, ` +
    `${s.unchanged} unchanged, ${s.removed} removed, ${s.failed.length} failed${failed}`
  );
}

async function run(startup: Startup): Promise<void> {
  const t0 = Date.now();
  const startedAt = startup.state.startedAt;
  try {
    const config = getConfig();
    try {
      ensureAdminSecret(config);
    } catch (err) {
      console.error(`[auth] could not create the first-run admin secret: ${err instanceof Error ? err.message : String(err)}`);
    }
    // Before any worker of this server runs: the cgroups a killed server's OCR workers left (lib/worker/memory-cap.ts).
    const stale = removeStaleCgroups();
    if (stale) console.log(`[ocr] removed ${stale} memory cgroups that a server which ended left behind`);
    const store = await getStore();
    let summary: SyncSummary | null = null;
    if (existsSync(config.knowledgeDir)) {
      summary = await syncKnowledgeDir(store, config.knowledgeDir, config.defaultKb);
      console.log(summarize(config.knowledgeDir, config.defaultKb, summary, Date.now() - t0));
    } else {
      console.log(`[knowledge] no folder at ${config.knowledgeDir}; nothing to index`);
    }
    await checkSsoDefaults(store, config.oidc);
    removeOrphansLater(store, config.store.orphanGraceMs);
    reconcileSourcesLater(store, config.store.orphanGraceMs);
    startSourceScheduler(store);
    startSsoRecheck(store);
    await settledWithin(store.warmed(), WARM_WAIT_MS);
    startup.state = { status: "ready", startedAt, finishedAt: new Date().toISOString(), knowledgeDir: config.knowledgeDir, summary };
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    console.error(`[knowledge] start-up indexing failed: ${error}`);
    startup.state = { status: "failed", startedAt, finishedAt: new Date().toISOString(), error };
  }
}

/**
 * The full-text index is loaded into memory when the store opens (Store.warmed: seconds on a large store; see
 * docs/design-decisions.md), and the server is ready once it is: searches that came meanwhile competed with the load for the CPU and read
 * the index piece by piece. An index bigger than this wait allows is still loading when the server is ready.
 */
const WARM_WAIT_MS = 30_000;

/** Waits for `work` (which never rejects) at most `ms`. */
async function settledWithin(work: Promise<void>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/**
 * Single sign-on gives new people OIDC_DEFAULT_KBS: a name there that is no knowledge base (a typo, or one
 * created later under that name) must not be granted silently, so start-up fails and says which.
 */
async function checkSsoDefaults(store: Store, oidc: ReturnType<typeof getConfig>["oidc"]): Promise<void> {
  if (!oidcEnabled(oidc) || oidc.defaultKbs.length === 0) return;
  const known = await knownKbs(store, await getRegistry(store));
  const unknown = oidc.defaultKbs.filter((k) => !known.includes(k));
  if (unknown.length) {
    throw new Error(`OIDC_DEFAULT_KBS names no knowledge base: ${unknown.join(", ")} (create it first, or correct the name)`);
  }
}

/** Chunks left without their document by a killed write are removed in the background, not before ready. */
function removeOrphansLater(store: Store, graceMs: number): void {
  store.removeOrphans(graceMs).then(
    (removed) => {
      if (removed > 0) console.log(`[store] removed ${removed} orphan chunks (their document rows were never written)`);
    },
    (err) => console.error(`[store] could not remove orphan chunks: ${err instanceof Error ? err.message : String(err)}`),
  );
}

/** A sync a crash interrupted: shown as interrupted, and its documents no source owns removed (in the background). */
function reconcileSourcesLater(store: Store, graceMs: number): void {
  reconcileSources(store, graceMs).then(
    ({ interrupted, removed }) => {
      if (interrupted || removed) console.log(`[sources] ${interrupted} interrupted syncs; removed ${removed} documents no source owns`);
    },
    (err) => console.error(`[sources] could not reconcile sources: ${err instanceof Error ? err.message : String(err)}`),
  );
}

/** Starts the start-up sync once per process (later calls return the same promise). Never rejects. */
export function startStartup(): Promise<void> {
  const g = globalThis as Global;
  if (!g[KEY]) {
    const startup: Startup = { state: { status: "pending", startedAt: new Date().toISOString() }, done: Promise.resolve() };
    g[KEY] = startup;
    startup.done = run(startup);
  }
  return g[KEY].done;
}

export function getStartupState(): StartupState {
  return (globalThis as Global)[KEY]?.state ?? { status: "pending", startedAt: new Date().toISOString() };
}

/** Starts the sync if needed and waits for it at most `timeoutMs`; returns the state at that point. */
export async function waitForStartup(timeoutMs: number): Promise<StartupState> {
  await settledWithin(startStartup(), timeoutMs);
  return getStartupState();
}

/** How long a tool call waits for start-up indexing before searching what is there so far. */
const TOOL_STARTUP_WAIT_MS = 60_000;

/** The store, once start-up indexing is done (or has waited `timeoutMs`), so a first search sees knowledge/. */
export async function getReadyStore(timeoutMs = TOOL_STARTUP_WAIT_MS) {
  await waitForStartup(timeoutMs);
  return getStore();
}
