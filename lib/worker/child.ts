/**
 * A child process that behaves, for lib/worker/pool.ts, like a worker thread: for work in native addons
 * (onnxruntime for OCR), where terminating a thread in the middle of a native call aborts the whole server.
 * Killing a process is always safe. Messages go over IPC with V8 serialization (typed arrays are copied); the
 * heap cap becomes --max-old-space-size and running out of it is told apart by V8's last words on stderr; it also caps
 * the whole process's memory (lib/worker/memory-cap.ts). Its environment is the allowed variables only (./child-env.ts).
 */
import { type ChildProcess, fork } from "node:child_process";
import { EventEmitter } from "node:events";
import type { ResourceLimits, Transferable } from "node:worker_threads";
import { childEnv } from "./child-env";
import { capMemory, type MemoryCap } from "./memory-cap";

const OUT_OF_HEAP = /Reached heap limit|JavaScript heap out of memory/;

export class ChildWorker extends EventEmitter {
  private readonly child: ChildProcess;
  private stderrTail = "";
  private readonly cap?: MemoryCap;

  constructor(file: string | URL, opts: { execArgv?: string[]; resourceLimits?: ResourceLimits; env?: Record<string, string> }) {
    super();
    const heap = opts.resourceLimits?.maxOldGenerationSizeMb;
    this.child = fork(file, [], {
      execArgv: [...(opts.execArgv ?? []), ...(heap ? [`--max-old-space-size=${heap}`] : [])],
      env: childEnv(opts.env),
      serialization: "advanced",
      stdio: ["ignore", "inherit", "pipe", "ipc"],
    });
    // The heap cap is the whole process's too: native memory (models, images, WebAssembly) counts.
    if (heap && this.child.pid) this.cap = capMemory(this.child.pid, heap, () => this.child.kill("SIGKILL"));
    this.child.stderr?.on("data", (chunk: Buffer) => {
      process.stderr.write(chunk);
      this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-4096);
    });
    this.child.on("message", (msg) => this.emit("message", msg));
    this.child.on("error", (err) => this.emit("error", err));
    // "close", not "exit": stderr is read to its end by then, so V8's out-of-heap message is in the tail.
    this.child.once("close", (code, signal) => {
      const overCap = this.cap?.exceeded() ?? false;
      this.cap?.release();
      if (overCap || OUT_OF_HEAP.test(this.stderrTail)) {
        this.emit("error", Object.assign(new Error("The worker process ran out of its heap."), { code: "ERR_WORKER_OUT_OF_MEMORY" }));
      } else this.emit("exit", code ?? signal);
    });
  }

  /** The process's id, once spawned (its CPU time is read from it: lib/worker/cpu.ts). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  postMessage(msg: unknown, _transfer?: readonly Transferable[]): void {
    // A closed channel (the process died) is told by "exit"; the send error adds nothing.
    this.child.send(msg as object, (err) => void err);
  }

  ref(): void {
    this.child.ref();
    this.child.channel?.ref();
    (this.child.stderr as { ref?: () => void } | null)?.ref?.();
  }

  unref(): void {
    this.child.unref();
    this.child.channel?.unref();
    (this.child.stderr as { unref?: () => void } | null)?.unref?.();
  }

  async terminate(): Promise<void> {
    this.child.kill("SIGKILL");
  }
}
