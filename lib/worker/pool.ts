/**
 * A small pool of worker threads for CPU-heavy work that must not stall the server (parsing untrusted
 * files). Each task gets a hard wall-clock budget and the worker a heap cap (resourceLimits); a worker
 * that runs out of either is terminated — the only way to stop synchronous code — and replaced for the
 * next task. Workers are spawned on demand, up to `size`, and do not keep the process alive when idle.
 */
import { type ResourceLimits, type Transferable, Worker } from "node:worker_threads";
import { ChildWorker } from "./child";

export interface PoolOptions {
  /** The worker script: a plain JS module (or TS with `execArgv: ["--import", "tsx"]`). */
  file: string | URL;
  size: number;
  timeoutMs: number;
  resourceLimits?: ResourceLimits;
  execArgv?: string[];
  /**
   * "thread" (default) or "process": a task in a native addon must run in a process (lib/worker/child.ts), since
   * terminating a thread inside a native call aborts this process.
   */
  isolation?: "thread" | "process";
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
  /** The worker thread has started; a task's budget counts from then. */
  online: boolean;
  /** Handed to this worker, in its order: the first is running, the rest wait in the worker. */
  tasks: Task[];
  timer?: ReturnType<typeof setTimeout>;
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
   * (OCR pages), `timeoutMs` is then the budget of one step, and the whole is bounded by the caller's `signal`.
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
    clearTimeout(slot.timer);
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

  function fail(task: Task, err: unknown) {
    settle(task);
    task.reject(err);
  }

  function spawn(): Slot {
    const worker =
      opts.isolation === "process"
        ? new ChildWorker(opts.file, { resourceLimits: opts.resourceLimits, execArgv: opts.execArgv })
        : new Worker(opts.file, { resourceLimits: opts.resourceLimits, execArgv: opts.execArgv, stdout: false, stderr: false });
    const slot: Slot = { worker, tasks: [], online: false };
    worker.unref();
    worker.once("online", () => {
      slot.online = true;
      if (slot.tasks.length > 0) startBudget(slot);
    });
    worker.on("message", (msg: { ok: boolean; value?: unknown; error?: RemoteError; progress?: unknown }) => {
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
      clearTimeout(slot.timer);
      settle(task);
      if (!task.dropped) {
        if (msg.ok) task.resolve(msg.value);
        else task.reject(Object.assign(new Error(msg.error?.message ?? "failed"), msg.error));
      }
      if (slot.tasks.length > 0) startBudget(slot);
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
    clearTimeout(s.timer);
    if (!s.online) return;
    s.timer = setTimeout(() => kill(s, new TaskStopped("time", `The task ran out of its ${opts.timeoutMs} ms budget.`)), opts.timeoutMs);
  }

  /** An idle worker first, then a new one, then one with room for a task to wait in it. */
  function pickSlot(): Slot | undefined {
    const all = [...slots];
    const idle = all.find((s) => s.tasks.length === 0);
    if (idle) return idle;
    if (slots.size < opts.size) return spawn();
    return all.filter((s) => s.tasks.length < TASKS_PER_WORKER).sort((a, b) => a.tasks.length - b.tasks.length)[0];
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
