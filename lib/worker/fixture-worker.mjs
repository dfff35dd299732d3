// A worker for lib/worker/pool.test.ts: each task names what to do.
import { parentPort } from "node:worker_threads";

parentPort.on("message", (task) => {
  if (task.do === "echo") parentPort.postMessage({ ok: true, value: task.value });
  if (task.do === "throw")
    parentPort.postMessage({ ok: false, error: { name: "AppError", message: "bad input", code: "parse_failed", status: 422 } });
  if (task.do === "spin") for (;;);
  if (task.do === "grow") {
    const hog = [];
    for (;;) hog.push(new Array(100_000).fill(Math.random()));
  }
});
