/**
 * Background store maintenance: a task that runs off the write path, at most one at a time, a little after
 * writes (so a burst of writes is folded into one run), bounded in time, logged, counted in /metrics, and
 * retried later when it fails. Writes and queries never await it.
 */
import type { Logger } from "pino";
import { recordMaintenance } from "@/lib/metrics";

export interface MaintainerOptions {
  /**
   * Wait this long after the first write of a burst before running; after a run, at least RUN_SPACING times
   * as long as that run took.
   */
  delayMs: number;
  /** Stop waiting for a run after this long (it is logged as a timeout and the next one waits for it to end). */
  timeoutMs: number;
  /** After a failure, try again this much later. */
  retryMs: number;
  logger: Logger;
}

export interface Maintainer {
  /** Marks the store as written; a run follows within delayMs unless one is already due. */
  schedule(): void;
  /** Runs now (after any run in progress) and resolves when done; for the CLI, tests and the bench. */
  runNow(): Promise<void>;
  /** Resolves when no run is in progress or due. */
  idle(): Promise<void>;
  stop(): void;
}

/** What one run reports for its log line (step name → duration or detail). */
export type MaintenanceReport = Record<string, unknown>;

/**
 * Under continuous writes maintenance takes at most a quarter of the time: a run's cost grows with the table,
 * and back-to-back runs took most of a bulk ingest's CPU (see docs/design-decisions.md).
 */
const RUN_SPACING = 3;

/** `explicit`: asked for by runNow() (CLI, tests), not by the background schedule. */
export function createMaintainer(
  task: (deadline: number, explicit: boolean) => Promise<MaintenanceReport>,
  opts: MaintainerOptions,
): Maintainer {
  let dirty = false;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let lastRunMs = 0;

  const arm = (ms: number) => {
    if (timer || stopped) return;
    timer = setTimeout(() => {
      timer = null;
      void run();
    }, ms);
    timer.unref?.();
  };

  const run = (explicit = false): Promise<void> => {
    if (running) return running; // the next run is armed when this one ends, if still dirty
    dirty = false;
    const t0 = performance.now();
    const work = task(Date.now() + opts.timeoutMs, explicit);
    let timeout: NodeJS.Timeout | undefined;
    const timedOut = new Promise<"timeout">((resolve) => {
      timeout = setTimeout(() => resolve("timeout"), opts.timeoutMs);
      timeout.unref?.();
    });
    running = (async () => {
      try {
        const r = await Promise.race([work, timedOut]);
        const ms = performance.now() - t0;
        if (r === "timeout") {
          recordMaintenance("timeout", ms);
          opts.logger.warn({ ms: Math.round(ms) }, "store maintenance timed out; the next run waits for it");
          await work.catch(() => undefined);
          dirty = true;
        } else {
          lastRunMs = ms;
          recordMaintenance("ok", ms);
          opts.logger.info({ ms: Math.round(ms), ...r }, "store maintenance done");
        }
      } catch (err) {
        const ms = performance.now() - t0;
        recordMaintenance("failed", ms);
        opts.logger.warn(
          { ms: Math.round(ms), err: err instanceof Error ? err.message : String(err) },
          "store maintenance failed; retrying later",
        );
        dirty = true;
        clearTimeout(timeout);
        running = null;
        arm(opts.retryMs);
        return;
      }
      clearTimeout(timeout);
      running = null;
      if (dirty) arm(Math.max(opts.delayMs, RUN_SPACING * lastRunMs));
    })();
    return running;
  };

  return {
    schedule() {
      dirty = true;
      if (!running) arm(Math.max(opts.delayMs, RUN_SPACING * lastRunMs));
    },
    async runNow() {
      if (running) await running;
      if (timer) {
        clearTimeout(timer);
        timer = null;
      }
      await run(true);
    },
    async idle() {
      while (running || timer) {
        if (running) await running;
        else await new Promise((r) => setTimeout(r, 50));
      }
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
