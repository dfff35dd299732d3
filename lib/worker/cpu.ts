/**
 * CPU time, the clock every task budget runs on: a busy machine makes a task slower, and a budget in wall-clock time
 * would then stop good work. Read from outside a worker (the pool: lib/worker/pool.ts) and from inside (a parser
 * checking its own budget between pages).
 */
import { readFile } from "node:fs/promises";
import { isMainThread } from "node:worker_threads";

/** Linux's USER_HZ, the unit of /proc/<pid>/stat's CPU fields: 100 on every architecture Node runs on. */
const MS_PER_TICK = 10;

/**
 * CPU milliseconds used by a process and the children it has waited for, from /proc/<pid>/stat; undefined where
 * there is no /proc (the pool then falls back to wall-clock time).
 */
export async function processCpuMs(pid: number): Promise<number | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name, which may itself hold spaces and parentheses: utime, stime, cutime, cstime are 14–17.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = fields.slice(11, 15).reduce((sum, f) => sum + Number(f), 0);
    return Number.isFinite(ticks) ? ticks * MS_PER_TICK : undefined;
  } catch {
    return undefined;
  }
}

/** CPU milliseconds the calling worker has used: its own thread's in a worker thread, its process's (all threads) elsewhere. */
export function ownCpuMs(): number {
  const used = isMainThread ? process.cpuUsage() : process.threadCpuUsage();
  return (used.user + used.system) / 1000;
}
