/**
 * A small pool of worker threads for CPU-heavy work that must not stall the server (parsing untrusted
 * files). Each task gets a hard budget of CPU time, counted from when its worker is ready and running it, a
 * generous wall-clock ceiling for a worker that hangs without using CPU, and the worker a heap cap
 * (resourceLimits); a worker that runs out of any is terminated — the only way to stop synchronous code — and
 * replaced for the next task. CPU time, not wall time, because a busy machine must make a task slower, never
 * stop it. Workers are spawned on demand, up to `size`, and do not keep the process alive when idle.
 */
import { type ResourceLimits, type Transferable, Worker } from "node:worker_threads";
import { ChildWorker } from "./child";
import { childEnv } from "./child-env";
import { processCpuMs } from "./cpu";
import { residentMb } from "./memory-cap";

export interface PoolOptions {
  /** The worker script: a plain JS module (or TS with `execArgv: ["--import", "tsx"]`). */
  file: string | URL;
  size: number;
  /** CPU time one task (or one step of it: RunOptions.onProgress) may use. */
  cpuBudgetMs: number;
  /** Wall-clock time one task (or step) may take: for a worker that hangs without using CPU. Default 10 × cpuBudgetMs, at least a minute. */
  wallCeilingMs?: number;
  resourceLimits?: ResourceLimits;
  execArgv?: string[];
  /**
   * "thread" (default) or "process": a task in a native addon must run in a process (lib/worker/child.ts), since
   * terminating a thread inside a native call aborts this process.
   */
  isolation?: "thread" | "process";
  /** Variables the workers get besides the few every child gets (./child-env.ts): none of the server's secrets. */
  env?: Record<string, string>;
  /**
   * Process workers only: a worker holding more than this many MB (resident) after a task is replaced before the next,
   * so that a task's memory cap is its own and not what tasks before it left behind. Such a worker is handed one task at
   * a time (a task waiting in it would have started already).
   */
  recycleAboveMb?: number;
}

/** A task that ran out of its budget, crashed its worker, or was aborted. */
export class TaskStopped extends Error {
  constructor(
    public readonly reason: "time" | "memory" | "crashed" | "aborted",
    message: string,
  ) {
    super(message);
    this.name = "TaskStopped";
  }
}

/** An error thrown inside the worker, as it crossed the thread boundary. */
export interface RemoteError {
  name: string;
  message: string;
  code?: string;
  status?: number;
}

interface Task {
  input: unknown;
  transfer: Transferable[];
  signal?: AbortSignal;
  onProgress?: (value: unknown) => void;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  onAbort?: () => void;
  /** The worker it was handed to (it runs once the tasks before it there are done). */
  slot?: Slot;
  /** Aborted while waiting in its worker: already rejected, its answer is dropped. */
  dropped?: boolean;
}

interface Slot {
  worker: Worker | ChildWorker;
  /** The worker has loaded its script and said so (lib/worker/serve.ts); a task's budget counts from then. */
  ready: boolean;
  /** Handed to this worker, in its order: the first is running, the rest wait in the worker. */
  tasks: Task[];
  budget?: Budget;
}

/** The running task's budget: CPU and wall clock at its start, and the timer that checks them. */
interface Budget {
  wallStart: number;
  /** Read asynchronously just after the start; until then the CPU budget is not checked. */
  cpuStart?: number;
  reading: boolean;
  timer: ReturnType<typeof setInterval>;
}

/**
 * Tasks handed to one worker at a time: the next waits in the worker, which starts it the moment the last one
 * ends. Handing each over only once the last one's answer was read left the worker asleep in between, and
 * waking a sleeping thread was most of what handing over cost (6 % of a bulk ingest's main thread on small pages).
 */
const TASKS_PER_WORKER = 2;

interface RunOptions {
  transfer?: Transferable[];
  signal?: AbortSignal;
  /**
   * Hears the worker's progress messages (lib/worker/serve.ts). Each restarts the task's budget: for work in steps
   * (OCR pages), `cpuBudgetMs` is then the budget of one step, and the whole is bounded by the caller's `signal`.
   */
  onProgress?: (value: unknown) => void;
}

export interface WorkerPool {
  run<O>(input: unknown, opts?: RunOptions): Promise<O>;
  /** Workers alive now (for tests). */
  size(): number;
  close(): Promise<void>;
}

export function createWorkerPool(opts: PoolOptions): WorkerPool {
  const wallCeilingMs = opts.wallCeilingMs ?? Math.max(60_000, 10 * opts.cpuBudgetMs);
  const checkEveryMs = Math.max(20, Math.min(250, opts.cpuBudgetMs / 4));
  const slots = new Set<Slot>();
  const queue: Task[] = [];
  let closed = false;

  function settle(task: Task) {
    if (task.onAbort) task.signal?.removeEventListener("abort", task.onAbort);
    task.onAbort = undefined;
  }

  /**
   * Ends a worker, failing its running task with `err`; the tasks waiting in it never started, so they go back to
   * the front of the queue for a fresh worker.
   */
  function kill(slot: Slot, err: unknown) {
    const [running, ...waiting] = slot.tasks;
    stopBudget(slot);
    slot.tasks = [];
    slots.delete(slot);
    slot.worker.removeAllListeners();
    slot.worker.on("error", () => {});
    void slot.worker.terminate();
    if (running && !running.dropped) fail(running, err); // a dropped one was settled when it was aborted
    const again = waiting.filter((t) => !t.dropped);
    for (const t of again) t.slot = undefined;
    queue.unshift(...again);
    if (closed) for (const t of queue.splice(0)) fail(t, new TaskStopped("aborted", "The pool was closed."));
    dispatch();
  }

  /** Ends a worker between tasks (none running, none waiting in it): the next task gets a fresh one. */
  function retire(slot: Slot) {
    stopBudget(slot);
    slots.delete(slot);
    slot.worker.removeAllListeners();
    slot.worker.on("error", () => {});
    void slot.worker.terminate();
  }

  /** Whether a worker that has just answered holds more memory than a task may find taken (recycleAboveMb). */
  function holdsTooMuch(slot: Slot): boolean {
    if (opts.recycleAboveMb === undefined || !(slot.worker instanceof ChildWorker) || slot.worker.pid === undefined) return false;
    return (residentMb(slot.worker.pid) ?? 0) > opts.recycleAboveMb;
  }

  function fail(task: Task, err: unknown) {
    settle(task);
    task.reject(err);
  }

  function spawn(): Slot {
    const worker =
      opts.isolation === "process"
        ? new ChildWorker(opts.file, { resourceLimits: opts.resourceLimits, execArgv: opts.execArgv, env: opts.env })
        : new Worker(opts.file, {
            resourceLimits: opts.resourceLimits,
            execArgv: opts.execArgv,
            env: childEnv(opts.env),
            stdout: false,
            stderr: false,
          });
    const slot: Slot = { worker, tasks: [], ready: false };
    worker.unref();
    worker.on("message", (msg: { ok: boolean; value?: unknown; error?: RemoteError; progress?: unknown; ready?: true }) => {
      if ("ready" in msg) {
        slot.ready = true;
        if (slot.tasks.length > 0) startBudget(slot);
        return;
      }
      if ("progress" in msg) {
        const running = slot.tasks[0];
        if (running && !running.dropped) {
          startBudget(slot);
          running.onProgress?.(msg.progress);
        }
        return;
      }
      const task = slot.tasks.shift();
      if (!task) return;
      stopBudget(slot);
      settle(task);
      if (!task.dropped) {
        if (msg.ok) task.resolve(msg.value);
        else task.reject(Object.assign(new Error(msg.error?.message ?? "failed"), msg.error));
      }
      if (slot.tasks.length > 0) startBudget(slot);
      else if (holdsTooMuch(slot)) retire(slot);
      else worker.unref();
      dispatch();
    });
    worker.on("error", (err: Error & { code?: string }) => {
      const memory = err.code === "ERR_WORKER_OUT_OF_MEMORY";
      kill(
        slot,
        new TaskStopped(
          memory ? "memory" : "crashed",
          memory ? "The task ran out of its memory budget." : `The worker crashed: ${err.message}`,
        ),
      );
    });
    worker.on("exit", () => {
      if (slots.has(slot)) kill(slot, new TaskStopped("crashed", "The worker exited."));
    });
    slots.add(slot);
    return slot;
  }

  /** The budget of the slot's running task, from now. */
  function startBudget(s: Slot) {
    stopBudget(s);
    if (!s.ready) return;
    const budget: Budget = { wallStart: performance.now(), reading: true, timer: setInterval(() => checkBudget(s, budget), checkEveryMs) };
    budget.timer.unref();
    s.budget = budget;
    void cpuOf(s).then((cpu) => {
      budget.cpuStart = cpu;
      budget.reading = false;
    });
  }

  function stopBudget(s: Slot) {
    if (s.budget) clearInterval(s.budget.timer);
    s.budget = undefined;
  }

  function checkBudget(s: Slot, budget: Budget) {
    const wall = performance.now() - budget.wallStart;
    if (wall > wallCeilingMs) {
      kill(s, new TaskStopped("time", `The task ran past its ${wallCeilingMs} ms wall-clock ceiling.`));
      return;
    }
    if (budget.reading) return;
    budget.reading = true;
    void cpuOf(s).then((cpu) => {
      budget.reading = false;
      if (s.budget !== budget) return;
      // Where CPU time cannot be read, wall time since the task started stands in for it.
      const used = cpu === undefined || budget.cpuStart === undefined ? wall : cpu - budget.cpuStart;
      if (used > opts.cpuBudgetMs) kill(s, new TaskStopped("time", `The task used more than its ${opts.cpuBudgetMs} ms of CPU time.`));
    });
  }

  /** An idle worker first, then a new one, then one with room for a task to wait in it. */
  function pickSlot(): Slot | undefined {
    const all = [...slots];
    const idle = all.find((s) => s.tasks.length === 0);
    if (idle) return idle;
    if (slots.size < opts.size) return spawn();
    const perWorker = opts.recycleAboveMb === undefined ? TASKS_PER_WORKER : 1;
    return all.filter((s) => s.tasks.length < perWorker).sort((a, b) => a.tasks.length - b.tasks.length)[0];
  }

  /** CPU milliseconds the slot's worker has used: its thread's, or its process's and its children's. */
  async function cpuOf(s: Slot): Promise<number | undefined> {
    const w = s.worker;
    if (w instanceof ChildWorker) return w.pid === undefined ? undefined : processCpuMs(w.pid);
    try {
      const used = await (w as Worker & { cpuUsage(): Promise<NodeJS.CpuUsage> }).cpuUsage();
      return (used.user + used.system) / 1000;
    } catch {
      return undefined; // the thread has ended
    }
  }

  function dispatch() {
    while (!closed && queue.length > 0) {
      const slot = pickSlot();
      if (!slot) return;
      const task = queue.shift()!;
      task.slot = slot;
      slot.tasks.push(task);
      slot.worker.ref();
      if (slot.tasks.length === 1) startBudget(slot);
      slot.worker.postMessage(task.input, task.transfer);
    }
  }

  function abort(task: Task) {
    const stopped = new TaskStopped("aborted", "The task was cancelled.");
    if (!task.slot) {
      queue.splice(queue.indexOf(task), 1);
      fail(task, stopped);
    } else if (task.slot.tasks[0] === task) kill(task.slot, stopped);
    else {
      task.dropped = true;
      fail(task, stopped);
    }
  }

  return {
    run<O>(input: unknown, runOpts: RunOptions = {}) {
      return new Promise<O>((resolve, reject) => {
        const task: Task = {
          input,
          transfer: runOpts.transfer ?? [],
          signal: runOpts.signal,
          onProgress: runOpts.onProgress,
          resolve: resolve as (v: unknown) => void,
          reject,
        };
        if (closed || task.signal?.aborted) {
          reject(new TaskStopped("aborted", closed ? "The pool was closed." : "The task was cancelled."));
          return;
        }
        if (task.signal) {
          task.onAbort = () => abort(task);
          task.signal.addEventListener("abort", task.onAbort, { once: true });
        }
        queue.push(task);
        dispatch();
      });
    },
    size: () => slots.size,
    async close() {
      closed = true;
      for (const t of queue.splice(0)) fail(t, new TaskStopped("aborted", "The pool was closed."));
      for (const s of [...slots]) kill(s, new TaskStopped("aborted", "The pool was closed."));
    },
  };
}
