/**
 * The cgroups of a killed server's workers do not stay behind: the next start-up (removeStaleCgroups) removes them,
 * and leaves those of a server still running. Runs where this process may make cgroups (root, or a delegated
 * cgroup v2), as the OCR workers' cap does.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { cgroupParents, removeStaleCgroups } from "./memory-cap";

const parents = cgroupParents();
const parent = parents.v2 ?? parents.v1;

/** A server with one OCR-like worker under a memory cgroup (e2e/fixtures/ocr-pool-server.ts), once it says ready. */
async function startServer(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "e2e/fixtures/ocr-pool-server.ts"], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (c) => {
      output += c;
      if (output.includes("ready")) resolve();
    });
    child.stderr!.on("data", (c) => (output += c));
    child.on("exit", () => reject(new Error(`the server ended: ${output}`)));
  });
  return child;
}

const cgroupsOf = (pid: number) => readdirSync(parent!).filter((n) => n.startsWith(`kb-mcp-chat-ocr-${pid}-`));

async function kill(child: ChildProcess) {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
}

describe.skipIf(parent === undefined)("cgroups of OCR workers", { timeout: 120_000 }, () => {
  it("a killed server's are removed at the next start-up; a running server's stay", async () => {
    const [killed, running] = [await startServer(), await startServer()];
    try {
      expect(cgroupsOf(killed.pid!)).toHaveLength(1);
      expect(cgroupsOf(running.pid!)).toHaveLength(1);
      await kill(killed);
      expect(cgroupsOf(killed.pid!)).toHaveLength(1); // left behind
      await vi.waitFor(
        () => {
          removeStaleCgroups();
          expect(cgroupsOf(killed.pid!)).toEqual([]);
        },
        { timeout: 30_000, interval: 200 },
      );
      expect(cgroupsOf(running.pid!)).toHaveLength(1);
    } finally {
      await kill(running);
      await vi.waitFor(
        () => {
          removeStaleCgroups();
          expect(cgroupsOf(running.pid!)).toEqual([]);
        },
        { timeout: 30_000, interval: 200 },
      );
    }
  });
});
