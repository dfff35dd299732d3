// A worker for lib/worker/pool.test.ts: each task names what to do.
import { serveTasks } from "./serve";

type Task =
  | { do: "echo"; value: unknown }
  | { do: "throw" }
  | { do: "spin" }
  | { do: "grow" }
  | { do: "sleep"; ms: number; value: unknown }
  | { do: "steps"; ms: number; steps: number };

serveTasks(async (task: Task, progress) => {
  switch (task.do) {
    case "echo":
      return task.value;
    case "throw":
      throw Object.assign(new Error("bad input"), { name: "AppError", code: "parse_failed", status: 422 });
    case "spin":
      for (;;);
    case "grow": {
      const hog: number[][] = [];
      for (;;) hog.push(new Array(100_000).fill(Math.random()));
    }
    case "sleep":
      await new Promise((r) => setTimeout(r, task.ms));
      return task.value;
    case "steps":
      for (let i = 1; i <= task.steps; i++) {
        await new Promise((r) => setTimeout(r, task.ms));
        progress(i);
      }
      return "all steps";
  }
});
