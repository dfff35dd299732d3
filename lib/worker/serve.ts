/** The worker side of lib/worker/pool.ts: answers each message with `fn(message)` or its error. */
import { parentPort, type Transferable } from "node:worker_threads";
import type { RemoteError } from "./pool";

export function serveTasks<I, O>(fn: (input: I) => O | Promise<O>, transferOf: (output: O) => Transferable[] = () => []): void {
  if (!parentPort) throw new Error("serveTasks must run in a worker thread");
  const port = parentPort;
  port.on("message", async (input: I) => {
    try {
      const value = await fn(input);
      port.postMessage({ ok: true, value }, transferOf(value));
    } catch (err) {
      const e = err as Partial<RemoteError> & Error;
      const error: RemoteError = { name: e?.name ?? "Error", message: e?.message ?? String(err) };
      if (typeof e?.code === "string") error.code = e.code;
      if (typeof e?.status === "number") error.status = e.status;
      port.postMessage({ ok: false, error });
    }
  });
}
