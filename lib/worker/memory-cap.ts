/**
 * A child process's whole memory held under a cap by the operating system, not only its JavaScript heap (onnxruntime,
 * sharp and WebAssembly allocate outside it). A memory cgroup of its own where this process may make one (cgroup v2
 * `memory.max`, or v1 `memory.limit_in_bytes`: the kernel stops the child when it goes over); elsewhere its resident
 * size is watched and the child killed over the cap. An address-space limit (RLIMIT_AS) cannot serve: V8 reserves
 * gigabytes of address space for each WebAssembly memory, so a child under a few-GB limit cannot even start.
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

/** A cgroup holding only `pid`, capped at `bytes`, and how to tell it stopped the process; undefined where none can be made. */
function cgroupCap(pid: number, bytes: number): MemoryCap | undefined {
  const own = ownCgroup();
  const candidates: { dir: string; limit: string; extra?: [string, string]; ooms: () => number }[] = [];
  if (own.v2 !== undefined && readIfExists("/sys/fs/cgroup/cgroup.controllers")?.includes("memory")) {
    const dir = path.join("/sys/fs/cgroup", own.v2, `${PREFIX}${pid}`);
    const events = () => Number(/oom_kill (\d+)/.exec(readIfExists(path.join(dir, "memory.events")) ?? "")?.[1] ?? 0);
    candidates.push({ dir, limit: "memory.max", extra: ["memory.swap.max", "0"], ooms: events });
  }
  if (own.v1 !== undefined && existsSync("/sys/fs/cgroup/memory")) {
    const parent = existsSync(path.join("/sys/fs/cgroup/memory", own.v1))
      ? path.join("/sys/fs/cgroup/memory", own.v1)
      : "/sys/fs/cgroup/memory";
    const dir = path.join(parent, `${PREFIX}${pid}`);
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

/** Empty cgroups left by children whose parent ended before it could remove them. */
function removeStale(parent: string) {
  let names: string[] = [];
  try {
    names = readdirSync(parent).filter((n) => n.startsWith(PREFIX));
  } catch {
    return;
  }
  for (const name of names) {
    if (existsSync(`/proc/${name.slice(PREFIX.length)}`)) continue;
    try {
      rmdirSync(path.join(parent, name));
    } catch {
      // in use after all
    }
  }
}

function readIfExists(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

/** Resident size watched every WATCH_MS; over the cap, `kill` is called. */
function watchedCap(pid: number, bytes: number, kill: () => void): MemoryCap {
  let over = false;
  const timer = setInterval(() => {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(readIfExists(`/proc/${pid}/status`) ?? "")?.[1] ?? 0);
    if (kb * 1024 > bytes) {
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
