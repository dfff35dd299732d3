// A worker for lib/worker/pool.test.ts: each task names what to do.
import { ownCpuMs } from "./cpu";
import { serveTasks } from "./serve";

type Task =
  | { do: "echo"; value: unknown }
  | { do: "throw" }
  | { do: "spin" }
  | { do: "hang" }
  | { do: "grow" }
  | { do: "sleep"; ms: number; value: unknown }
  | { do: "steps"; cpuMs: number; steps: number }
  | { do: "env" }
  | { do: "hold"; mb: number }
  | { do: "pid" };

/** Memory a task keeps after it ends (a leak, or a native allocator that does not give back). */
const held: Buffer[] = [];

/** Uses `ms` of this worker's CPU time, however busy the machine is. */
function burn(ms: number) {
  const until = ownCpuMs() + ms;
  while (ownCpuMs() < until);
}

// A slow start-up (loading a model, say), which no task's budget should count.
burn(Number(process.env.FIXTURE_WORKER_STARTUP_CPU_MS ?? 0));

serveTasks(async (task: Task, progress) => {
  switch (task.do) {
    case "echo":
      return task.value;
    case "throw":
      throw Object.assign(new Error("bad input"), { name: "AppError", code: "parse_failed", status: 422 });
    case "spin":
      for (;;);
    case "hang":
      return new Promise(() => {});
    case "grow": {
      const hog: number[][] = [];
      for (;;) hog.push(new Array(100_000).fill(Math.random()));
    }
    case "sleep":
      await new Promise((r) => setTimeout(r, task.ms));
      return task.value;
    case "steps":
      for (let i = 1; i <= task.steps; i++) {
        burn(task.cpuMs);
        progress(i);
      }
      return "all steps";
    case "env":
      return { ...process.env };
    case "hold":
      held.push(Buffer.alloc(task.mb * 1024 * 1024, 1));
      return process.pid;
    case "pid":
      return process.pid;
  }
});
