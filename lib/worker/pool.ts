/**
 * A small pool of worker threads for CPU-heavy work that must not stall the server (parsing untrusted
 * files). Each task gets a hard wall-clock budget and the worker a heap cap (resourceLimits); a worker
 * that runs out of either is terminated — the only way to stop synchronous code — and replaced for the
 * next task. Workers are spawned on demand, up to `size`, and do not keep the process alive when idle.
 */
import { type ResourceLimits, type Transferable, Worker } from "node:worker_threads";

export interface PoolOptions {
  /** The worker script: a plain JS module (or TS with `execArgv: ["--import", "tsx"]`). */
  file: string | URL;
  size: number;
  timeoutMs: number;
  resourceLimits?: ResourceLimits;
  execArgv?: string[];
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
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

interface Slot {
  worker: Worker;
  /** The worker thread has started; a task's budget counts from then. */
  online: boolean;
  task: Task | null;
  timer?: ReturnType<typeof setTimeout>;
  onAbort?: () => void;
}

export interface WorkerPool {
  run<O>(input: unknown, opts?: { transfer?: Transferable[]; signal?: AbortSignal }): Promise<O>;
  /** Workers alive now (for tests). */
  size(): number;
  close(): Promise<void>;
}

export function createWorkerPool(opts: PoolOptions): WorkerPool {
  const slots = new Set<Slot>();
  const queue: Task[] = [];

  function finish(slot: Slot) {
    clearTimeout(slot.timer);
    if (slot.onAbort) slot.task?.signal?.removeEventListener("abort", slot.onAbort);
    slot.task = null;
    slot.onAbort = undefined;
    slot.worker.unref();
  }

  /** Ends a worker with its task (if any) failed by `err`; the next task gets a fresh worker. */
  function kill(slot: Slot, err: unknown) {
    const task = slot.task;
    finish(slot);
    slots.delete(slot);
    slot.worker.removeAllListeners();
    slot.worker.on("error", () => {});
    void slot.worker.terminate();
    task?.reject(err);
    dispatch();
  }

  function spawn(): Slot {
    const worker = new Worker(opts.file, { resourceLimits: opts.resourceLimits, execArgv: opts.execArgv, stdout: false, stderr: false });
    const slot: Slot = { worker, task: null, online: false };
    worker.unref();
    worker.once("online", () => {
      slot.online = true;
      if (slot.task) startBudget(slot);
    });
    worker.on("message", (msg: { ok: boolean; value?: unknown; error?: RemoteError }) => {
      const task = slot.task;
      if (!task) return;
      finish(slot);
      if (msg.ok) task.resolve(msg.value);
      else task.reject(Object.assign(new Error(msg.error?.message ?? "failed"), msg.error));
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

  function startBudget(s: Slot) {
    clearTimeout(s.timer);
    s.timer = setTimeout(() => kill(s, new TaskStopped("time", `The task ran out of its ${opts.timeoutMs} ms budget.`)), opts.timeoutMs);
  }

  function dispatch() {
    while (queue.length > 0) {
      let slot = [...slots].find((s) => !s.task);
      if (!slot && slots.size < opts.size) slot = spawn();
      if (!slot) return;
      const task = queue.shift()!;
      if (task.signal?.aborted) {
        task.reject(new TaskStopped("aborted", "The task was cancelled."));
        continue;
      }
      const s = slot;
      s.task = task;
      s.worker.ref();
      if (s.online) startBudget(s);
      if (task.signal) {
        s.onAbort = () => kill(s, new TaskStopped("aborted", "The task was cancelled."));
        task.signal.addEventListener("abort", s.onAbort, { once: true });
      }
      s.worker.postMessage(task.input, task.transfer);
    }
  }

  return {
    run<O>(input: unknown, runOpts: { transfer?: Transferable[]; signal?: AbortSignal } = {}) {
      return new Promise<O>((resolve, reject) => {
        queue.push({ input, transfer: runOpts.transfer ?? [], signal: runOpts.signal, resolve: resolve as (v: unknown) => void, reject });
        dispatch();
      });
    },
    size: () => slots.size,
    async close() {
      for (const t of queue.splice(0)) t.reject(new TaskStopped("aborted", "The pool was closed."));
      for (const s of [...slots]) kill(s, new TaskStopped("aborted", "The pool was closed."));
    },
  };
}
