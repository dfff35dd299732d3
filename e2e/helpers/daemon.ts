/** A real server a test starts as a child process (Apache, Dovecot, PHP): waiting for it to listen, and stopping it. */
import type { ChildProcess } from "node:child_process";
import { readFile } from "node:fs/promises";
import net from "node:net";

/** Waits until `child` (named `name`) accepts connections on `port`, up to 10 s; its output and `logFile` tell why not. */
export async function waitListening(name: string, port: number, child: ChildProcess, out: () => string, logFile?: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) {
      const log = logFile ? await readFile(logFile, "utf8").catch(() => "") : "";
      throw new Error(`${name} exited with ${child.exitCode}: ${out()}${log}`);
    }
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, "127.0.0.1", () => {
        s.destroy();
        resolve(true);
      });
      s.on("error", () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill("SIGKILL");
  throw new Error(`${name} did not listen on ${port} within 10 s: ${out()}`);
}

/** Stops `child` with SIGTERM, SIGKILL after 5 s; resolves once it exited. */
export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}
