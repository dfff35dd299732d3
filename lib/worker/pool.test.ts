import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SERVER_SECRETS, setServerSecrets } from "@/lib/test-helpers/server-secrets";
import { createWorkerPool, TaskStopped, type WorkerPool } from "./pool";

const file = path.join(import.meta.dirname, "fixture-worker.ts");
const execArgv = ["--import", "tsx"];
let pool: WorkerPool | undefined;
afterEach(async () => {
  await pool?.close();
});

// Threads for JavaScript work, processes for native addons (OCR): the same contract either way. Budgets are CPU time,
// so none of these depends on how fast or how busy the machine is; the generous test timeout only bounds a hang.
describe.each(["thread", "process"] as const)("worker pool (%s)", { timeout: 300_000 }, (isolation) => {
  it("runs tasks and passes errors back with their fields", async () => {
    pool = createWorkerPool({ file, execArgv, isolation, size: 2, cpuBudgetMs: 10_000 });
    expect(await Promise.all([1, 2, 3].map((value) => pool!.run({ do: "echo", value })))).toEqual([1, 2, 3]);
    expect(pool.size()).toBeLessThanOrEqual(2);
    await expect(pool.run({ do: "throw" })).rejects.toMatchObject({
      name: "AppError",
      code: "parse_failed",
      status: 422,
      message: "bad input",
    });
  });

  it("stops a task that never ends at its CPU budget and answers the next one with a fresh worker", async () => {
    pool = createWorkerPool({ file, execArgv, isolation, size: 1, cpuBudgetMs: 500 });
    const stuck = pool.run({ do: "spin" });
    const next = pool.run({ do: "echo", value: "after" });
    await expect(stuck).rejects.toMatchObject({ reason: "time", message: expect.stringMatching(/CPU time/) });
    await expect(stuck).rejects.toBeInstanceOf(TaskStopped);
    expect(await next).toBe("after");
  });

  it("counts a task's CPU time, not its waiting: a task idle past its CPU budget finishes", async () => {
    pool = createWorkerPool({ file, execArgv, isolation, size: 1, cpuBudgetMs: 300 });
    expect(await pool.run({ do: "sleep", ms: 1500, value: "rested" })).toBe("rested");
  });

  it("does not count the worker's start-up against the first task", async () => {
    pool = createWorkerPool({ file, execArgv, isolation, size: 1, cpuBudgetMs: 300, env: { FIXTURE_WORKER_STARTUP_CPU_MS: "800" } });
    expect(await pool.run({ do: "echo", value: "first" })).toBe("first");
  });

  it("stops a task that hangs without using CPU at its wall-clock ceiling", async () => {
    pool = createWorkerPool({ file, execArgv, isolation, size: 1, cpuBudgetMs: 60_000, wallCeilingMs: 1000 });
    await expect(pool.run({ do: "hang" })).rejects.toMatchObject({ reason: "time", message: expect.stringMatching(/wall-clock/) });
    expect(await pool.run({ do: "echo", value: "after" })).toBe("after");
  });

  it("terminates a task that outgrows its memory cap", async () => {
    pool = createWorkerPool({
      file,
      execArgv,
      isolation,
      size: 1,
      cpuBudgetMs: 60_000,
      resourceLimits: { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 8 },
    });
    await expect(pool.run({ do: "grow" })).rejects.toMatchObject({ reason: "memory" });
    expect(await pool.run({ do: "echo", value: 7 })).toBe(7);
  });

  it("answers each task in order with a task waiting in the worker, and drops the answer of one aborted there", async () => {
    pool = createWorkerPool({ file, execArgv, isolation, size: 1, cpuBudgetMs: 60_000 });
    const ctrl = new AbortController();
    const first = pool.run({ do: "sleep", ms: 300, value: "first" });
    const waiting = pool.run({ do: "echo", value: "waiting" }, { signal: ctrl.signal });
    const third = pool.run({ do: "echo", value: "third" });
    ctrl.abort();
    await expect(waiting).rejects.toMatchObject({ reason: "aborted" });
    expect(await Promise.all([first, third])).toEqual(["first", "third"]);
    expect(await pool.run({ do: "echo", value: 4 })).toBe(4);
    expect(pool.size()).toBe(1); // the worker was not stopped for the aborted task
  });

  it("stops a task when its signal aborts", async () => {
    pool = createWorkerPool({ file, execArgv, isolation, size: 1, cpuBudgetMs: 60_000 });
    const ctrl = new AbortController();
    const stuck = pool.run({ do: "spin" }, { signal: ctrl.signal });
    setTimeout(() => ctrl.abort(), 100);
    await expect(stuck).rejects.toMatchObject({ reason: "aborted" });
  });

  it("gives the worker none of the server's secrets, only the variables it needs and those it is given", async () => {
    const restore = setServerSecrets();
    try {
      pool = createWorkerPool({ file, execArgv, isolation, size: 1, cpuBudgetMs: 60_000, env: { FIXTURE_VALUE: "given" } });
      const env = await pool.run<Record<string, string>>({ do: "env" });
      expect(env).toMatchObject({ PATH: process.env.PATH, FIXTURE_VALUE: "given" });
      for (const [name, value] of Object.entries(SERVER_SECRETS)) {
        expect(env[name], name).toBeUndefined();
        expect(Object.values(env).join("\n")).not.toContain(value);
      }
    } finally {
      restore();
    }
  });

  it("passes a task's progress on, each step restarting its CPU budget", async () => {
    pool = createWorkerPool({ file, execArgv, isolation, size: 1, cpuBudgetMs: 400 });
    const heard: unknown[] = [];
    // 5 steps of 150 ms of CPU: more than the budget in all, each step well within it.
    const done = await pool.run({ do: "steps", cpuMs: 150, steps: 5 }, { onProgress: (p) => heard.push(p) });
    expect(done).toBe("all steps");
    expect(heard).toEqual([1, 2, 3, 4, 5]);
  });
});

describe("worker pool (process) memory", { timeout: 120_000 }, () => {
  it("replaces a worker that holds more than recycleAboveMb after a task, before its next task; keeps one that holds less", async () => {
    pool = createWorkerPool({ file, execArgv, isolation: "process", size: 1, cpuBudgetMs: 60_000, recycleAboveMb: 300 });
    const first = await pool.run<number>({ do: "hold", mb: 20 });
    expect(await pool.run<number>({ do: "pid" })).toBe(first); // well under: kept
    const holding = await pool.run<number>({ do: "hold", mb: 400 });
    expect(holding).toBe(first);
    const next = await pool.run<number>({ do: "pid" });
    expect(next).not.toBe(holding);
    expect(pool.size()).toBe(1);
  });
});
