/**
 * The worker side of lib/worker/pool.ts: answers each message with `fn(message)` or its error, one message at a
 * time and in order (the pool hands a worker its next task before the last one ends, and counts a task's budget
 * from the end of the one before it). `progress` tells the pool how the task goes: it restarts the task's budget.
 */
import { parentPort, type Transferable } from "node:worker_threads";
import type { RemoteError } from "./pool";

export function serveTasks<I, O>(
  fn: (input: I, progress: (value: unknown) => void) => O | Promise<O>,
  transferOf: (output: O) => Transferable[] = () => [],
): void {
  if (!parentPort) throw new Error("serveTasks must run in a worker thread");
  const port = parentPort;
  let last: Promise<void> = Promise.resolve();
  port.on("message", (input: I) => {
    last = last.then(() => answer(input));
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
