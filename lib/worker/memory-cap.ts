/**
 * A child process's whole memory held under a cap by the operating system, not only its JavaScript heap (onnxruntime,
 * sharp and WebAssembly allocate outside it). A memory cgroup of its own where this process may make one (cgroup v2
 * `memory.max`, or v1 `memory.limit_in_bytes`: the kernel stops the child when it goes over); elsewhere its resident
 * size is watched and the child killed over the cap. An address-space limit (RLIMIT_AS) cannot serve: V8 reserves
 * gigabytes of address space for each WebAssembly memory, so a child under a few-GB limit cannot even start.
 * A cgroup is named after the server and the child (kb-mcp-chat-ocr-<server pid>-<child pid>), so that one a
 * server left behind (it was killed before it could remove them) is told apart and removed: at start-up
 * (removeStaleCgroups) and whenever a new one is made.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import path from "node:path";

export interface MemoryCap {
  /** Whether the child was stopped for going over the cap. */
  exceeded(): boolean;
  /** Frees what the cap holds (its cgroup, its watch) once the child has ended. */
  release(): void;
}

const PREFIX = "kb-mcp-chat-ocr-";
/** A cgroup of ours: the server's pid, then the child's (a name with one pid is an older server's, named after the child). */
const NAME = /^kb-mcp-chat-ocr-(\d+)(?:-\d+)?$/;

/** How often the fallback watch reads the child's resident size. */
const WATCH_MS = 100;

function ownCgroup(): { v2?: string; v1?: string } {
  let lines: string[] = [];
  try {
    lines = readFileSync("/proc/self/cgroup", "utf8").split("\n");
  } catch {
    return {};
  }
  const v2 = lines.find((l) => l.startsWith("0::"))?.slice(3);
  const v1 = lines.find((l) => /^\d+:([^:]*,)?memory(,[^:]*)?:/.test(l))?.replace(/^\d+:[^:]*:/, "");
  return { v2, v1 };
}

/** Where this process makes its children's cgroups: beside its own, in cgroup v2 and in v1's memory hierarchy. */
export function cgroupParents(): { v2?: string; v1?: string } {
  const own = ownCgroup();
  const out: { v2?: string; v1?: string } = {};
  if (own.v2 !== undefined && readIfExists("/sys/fs/cgroup/cgroup.controllers")?.includes("memory"))
    out.v2 = path.join("/sys/fs/cgroup", own.v2);
  if (own.v1 !== undefined && existsSync("/sys/fs/cgroup/memory"))
    out.v1 = existsSync(path.join("/sys/fs/cgroup/memory", own.v1)) ? path.join("/sys/fs/cgroup/memory", own.v1) : "/sys/fs/cgroup/memory";
  return out;
}

/** A cgroup holding only `pid`, capped at `bytes`, and how to tell it stopped the process; undefined where none can be made. */
function cgroupCap(pid: number, bytes: number): MemoryCap | undefined {
  const parents = cgroupParents();
  const name = `${PREFIX}${process.pid}-${pid}`;
  const candidates: { dir: string; limit: string; extra?: [string, string]; ooms: () => number }[] = [];
  if (parents.v2 !== undefined) {
    const dir = path.join(parents.v2, name);
    const events = () => Number(/oom_kill (\d+)/.exec(readIfExists(path.join(dir, "memory.events")) ?? "")?.[1] ?? 0);
    candidates.push({ dir, limit: "memory.max", extra: ["memory.swap.max", "0"], ooms: events });
  }
  if (parents.v1 !== undefined) {
    const dir = path.join(parents.v1, name);
    const ooms = () => Number(/oom_kill (\d+)/.exec(readIfExists(path.join(dir, "memory.oom_control")) ?? "")?.[1] ?? 0);
    candidates.push({ dir, limit: "memory.limit_in_bytes", ooms });
  }
  for (const c of candidates) {
    removeStale(path.dirname(c.dir));
    try {
      mkdirSync(c.dir);
    } catch {
      continue;
    }
    try {
      writeFileSync(path.join(c.dir, c.limit), String(bytes));
      if (c.extra) writeFileSync(path.join(c.dir, c.extra[0]), c.extra[1]);
      writeFileSync(path.join(c.dir, "cgroup.procs"), String(pid));
      let stopped = false;
      return {
        exceeded: () => {
          stopped ||= c.ooms() > 0;
          return stopped;
        },
        release: () => {
          stopped ||= c.ooms() > 0;
          try {
            rmdirSync(c.dir);
          } catch {
            // still emptying; the kernel frees it with the last process
          }
        },
      };
    } catch {
      try {
        rmdirSync(c.dir);
      } catch {
        // never held a process
      }
    }
  }
  return undefined;
}

/**
 * The cgroups under `parent` that a server left behind: every one of a server that is gone (a worker still in it
 * serves nobody and is killed; the kernel empties the cgroup, removed then or at the next call), and those of this
 * process that hold no process any more (a removal that found it still emptying). Another running server's stay.
 */
function removeStale(parent: string): number {
  let names: string[] = [];
  try {
    names = readdirSync(parent);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const owner = Number(NAME.exec(name)?.[1] ?? Number.NaN);
    if (Number.isNaN(owner)) continue;
    const dir = path.join(parent, name);
    const procs = (readIfExists(path.join(dir, "cgroup.procs")) ?? "").split("\n").filter(Boolean).map(Number);
    if (owner === process.pid ? procs.length > 0 : running(owner)) continue;
    for (const pid of procs) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // ended meanwhile
      }
    }
    try {
      rmdirSync(dir);
      removed++;
    } catch {
      // still emptying: the next call removes it
    }
  }
  return removed;
}

/** Whether process `pid` exists (one of another user's counts too). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Removes the cgroups servers left behind (see removeStale): at start-up, before any worker of this server runs. */
export function removeStaleCgroups(): number {
  const { v2, v1 } = cgroupParents();
  return (v2 === undefined ? 0 : removeStale(v2)) + (v1 === undefined ? 0 : removeStale(v1));
}

function readIfExists(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

/** Resident memory of process `pid` in MB (VmRSS of /proc/<pid>/status); undefined where it cannot be read. */
export function residentMb(pid: number): number | undefined {
  const kb = /VmRSS:\s+(\d+)/.exec(readIfExists(`/proc/${pid}/status`) ?? "")?.[1];
  return kb === undefined ? undefined : Number(kb) / 1024;
}

/** Resident size watched every WATCH_MS; over the cap, `kill` is called. */
function watchedCap(pid: number, bytes: number, kill: () => void): MemoryCap {
  let over = false;
  const timer = setInterval(() => {
    if ((residentMb(pid) ?? 0) * 1024 * 1024 > bytes) {
      over = true;
      clearInterval(timer);
      kill();
    }
  }, WATCH_MS);
  timer.unref();
  return { exceeded: () => over, release: () => clearInterval(timer) };
}

/** Caps the memory of child process `pid` at `mb` megabytes (a cgroup, else a watch that calls `kill`). */
export function capMemory(pid: number, mb: number, kill: () => void): MemoryCap {
  const bytes = mb * 1024 * 1024;
  return cgroupCap(pid, bytes) ?? watchedCap(pid, bytes, kill);
}
