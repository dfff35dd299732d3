/**
 * An app server a spec starts itself through server.mjs (the `npm start` entry), so it can read the
 * process's memory (/proc/<pid>/status) and set its own environment. Only loopback.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { allocatorEnv } from "../../lib/allocator.mjs";

export interface OwnServer {
  base: string;
  pid: number;
  /** stdout + stderr so far. */
  output(): string;
  stop(): Promise<void>;
}

export async function startOwnServer(port: number, env: Record<string, string>): Promise<OwnServer> {
  const child: ChildProcess = spawn(process.execPath, ["server.mjs", "-p", String(port), "-H", "127.0.0.1"], {
    // The allocator applied (as server.mjs would): it then serves in this very process (pid), whose memory the tests read.
    env: allocatorEnv({ ...process.env, NEXT_TELEMETRY_DISABLED: "1", OPENAI_API_KEY: "", ...env }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  // A server left running (a hook that timed out, a worker that stopped) would hold its port for the next spec.
  const killChild = () => child.kill("SIGKILL");
  process.once("exit", killChild);
  child.once("exit", () => process.off("exit", killChild));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 240; i++) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${out}`);
    const ok = await fetch(`${base}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (i === 239) {
      killChild();
      throw new Error(`server did not become healthy:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return {
    base,
    pid: child.pid!,
    output: () => out,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
        setTimeout(() => child.kill("SIGKILL"), 5000).unref();
      }),
  };
}

/** Resident memory of a process in bytes (Linux). */
export function rssBytes(pid: number): number {
  const kb = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  return Number(kb) * 1024;
}
