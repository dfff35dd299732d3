/**
 * Runs each source on its schedule (checked every SOURCE_SCHEDULER_TICK_S, default 30 s, and at start) and
 * watches server folders from the moment they are added, syncing one a few seconds after it changes. Runs go one after another in the background
 * (./engine.ts), so searches never wait for them. With several replicas, one runs the schedules
 * (SOURCE_SCHEDULER=off on the others); "Sync now" works on any.
 */
import { type FSWatcher, watch } from "node:fs";
import { processGlobal } from "@/lib/process-global";
import type { Store } from "@/lib/store";
import { runningOf } from "./engine";
import { startSync } from "./service";
import { getSourceStore, type SourceRecord } from "./store";
import { onSourceAdded } from "./wake";

const WATCH_DEBOUNCE_MS = 3000;

function tickMs(): number {
  const v = Number(process.env.SOURCE_SCHEDULER_TICK_S);
  return (Number.isFinite(v) && v > 0 ? v : 30) * 1000;
}

/** Whether this process runs the schedules: SOURCE_SCHEDULER, "on" (default) or "off". */
export function schedulerEnabled(): boolean {
  const v = (process.env.SOURCE_SCHEDULER ?? "on").trim().toLowerCase();
  if (v !== "on" && v !== "off") throw new Error(`SOURCE_SCHEDULER must be "on" or "off", got "${process.env.SOURCE_SCHEDULER}"`);
  return v === "on";
}

/** Starts the scheduler for `store` once per process, unless SOURCE_SCHEDULER is off. */
export function startSourceScheduler(store: Store): void {
  const started = processGlobal("sourceScheduler", () => ({ on: false }));
  if (started.on || !schedulerEnabled()) return;
  started.on = true;
  runSourceScheduler(store, tickMs());
}

/** Checks for due sources every `everyMs` and watches folder sources; returns what stops it. */
export function runSourceScheduler(store: Store, everyMs: number): () => void {
  const watchers = new Map<string, { path: string; watcher: FSWatcher }>();
  const timers = new Map<string, ReturnType<typeof setTimeout>>();

  const watchFolder = (s: SourceRecord) => {
    const dir = (s.config as { path: string }).path;
    if (watchers.get(s.id)?.path === dir) return;
    try {
      const watcher = watch(dir, { recursive: true }, () => {
        clearTimeout(timers.get(s.id));
        timers.set(
          s.id,
          setTimeout(async () => {
            const current = await (await getSourceStore(store)).get(s.id);
            if (current) void startSync(store, current).catch(() => {});
          }, WATCH_DEBOUNCE_MS).unref(),
        );
      });
      watcher.on("error", () => watchers.delete(s.id));
      watchers.set(s.id, { path: dir, watcher });
    } catch {
      // A folder that is not there yet: the schedule still runs, and the next tick tries to watch it again.
    }
  };

  const tick = async () => {
    const sources = await (await getSourceStore(store)).list();
    const now = Date.now();
    for (const s of sources) {
      if (s.kind === "folder") watchFolder(s);
      if (s.nextRunAt && Date.parse(s.nextRunAt) <= now && !runningOf(s.id)) void startSync(store, s).catch(() => {});
    }
    const ids = new Set(sources.map((s) => s.id));
    for (const [id, w] of watchers) {
      if (!ids.has(id)) {
        w.watcher.close();
        watchers.delete(id);
      }
    }
  };
  const runTick = () => {
    tick().catch((err) => console.error(`[sources] scheduler: ${err instanceof Error ? err.message : String(err)}`));
  };
  const timer = setInterval(runTick, everyMs);
  timer.unref();
  // Folders are watched from the start and from the moment one is added, not from the next tick on.
  runTick();
  const stopListening = onSourceAdded((s) => s.kind === "folder" && watchFolder(s));
  return () => {
    stopListening();
    clearInterval(timer);
    for (const t of timers.values()) clearTimeout(t);
    for (const w of watchers.values()) w.watcher.close();
    watchers.clear();
  };
}
