/**
 * The worker side of lib/worker/pool.ts: answers each message with `fn(message)` or its error, one message at a
 * time and in order (the pool hands a worker its next task before the last one ends, and counts a task's budget
 * from the end of the one before it). It says `ready` once its script is loaded: a task's budget counts from then, not
 * from the worker's start-up. `progress` tells the pool how the task goes: it restarts the task's budget.
 * In a worker thread it talks over `parentPort`; in a child process (lib/worker/child.ts), over IPC.
 */
import { parentPort, type Transferable } from "node:worker_threads";
import type { RemoteError } from "./pool";

interface Port {
  onMessage(fn: (input: unknown) => void): void;
  postMessage(msg: unknown, transfer?: Transferable[]): void;
}

function connect(): Port {
  const thread = parentPort;
  if (thread) return { onMessage: (fn) => thread.on("message", fn), postMessage: (msg, transfer) => thread.postMessage(msg, transfer) };
  const send = process.send?.bind(process);
  if (!send) throw new Error("serveTasks must run in a worker thread or a child process with IPC");
  process.on("disconnect", () => process.exit(0)); // the pool is gone
  return { onMessage: (fn) => process.on("message", fn), postMessage: (msg) => send(msg as object) };
}

export function serveTasks<I, O>(
  fn: (input: I, progress: (value: unknown) => void) => O | Promise<O>,
  transferOf: (output: O) => Transferable[] = () => [],
): void {
  const port = connect();
  port.postMessage({ ready: true });
  let last: Promise<void> = Promise.resolve();
  port.onMessage((input) => {
    last = last.then(() => answer(input as I));
  });
  const answer = async (input: I) => {
    try {
      const value = await fn(input, (progress) => port.postMessage({ progress }));
      port.postMessage({ ok: true, value }, transferOf(value));
    } catch (err) {
      const e = err as Partial<RemoteError> & Error;
      const error: RemoteError = { name: e?.name ?? "Error", message: e?.message ?? String(err) };
      if (typeof e?.code === "string") error.code = e.code;
      if (typeof e?.status === "number") error.status = e.status;
      port.postMessage({ ok: false, error });
    }
  };
}
