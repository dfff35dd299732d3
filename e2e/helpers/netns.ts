/**
 * Two network namespaces joined by a veth pair, made and removed by a spec: `srv` (where the app runs) and
 * `cli` (a remote client). All traffic stays inside them; nothing reaches this host's own addresses. Needs
 * root (`ip netns`): where no namespace can be made the spec fails.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { type Browser, chromium } from "@playwright/test";

export type Where = "srv" | "cli";

export interface NetnsPair {
  ns: Record<Where, string>;
  addr: Record<Where, string>;
  /** Prefix that runs a command in a namespace. */
  inNs(where: Where): string[];
  teardown(): void;
}

function sh(args: string[]) {
  const r = spawnSync(args[0], args.slice(1), { encoding: "utf8" });
  return { ok: r.status === 0, out: `${r.stdout ?? ""}${r.stderr ?? ""}` };
}

/** `tag` (a few letters) keeps the names and the /30 subnet (10.213.<subnet>.0) of concurrent specs apart. */
export function makeNetnsPair(tag: string, subnet: number): NetnsPair {
  const suffix = (process.pid % 10000).toString(36);
  const ns = { srv: `${tag}srv-${suffix}`, cli: `${tag}cli-${suffix}` };
  const veth = { srv: `${tag}s${suffix}`, cli: `${tag}c${suffix}` };
  const addr = { srv: `10.213.${subnet}.1`, cli: `10.213.${subnet}.2` };
  const teardown = () => {
    sh(["ip", "netns", "del", ns.srv]);
    sh(["ip", "netns", "del", ns.cli]);
  };
  teardown();
  const steps = [
    ["ip", "netns", "add", ns.srv],
    ["ip", "netns", "add", ns.cli],
    ["ip", "link", "add", veth.srv, "type", "veth", "peer", "name", veth.cli],
    ["ip", "link", "set", veth.srv, "netns", ns.srv],
    ["ip", "link", "set", veth.cli, "netns", ns.cli],
    ["ip", "-n", ns.srv, "addr", "add", `${addr.srv}/30`, "dev", veth.srv],
    ["ip", "-n", ns.cli, "addr", "add", `${addr.cli}/30`, "dev", veth.cli],
    ["ip", "-n", ns.srv, "link", "set", veth.srv, "up"],
    ["ip", "-n", ns.cli, "link", "set", veth.cli, "up"],
    ["ip", "-n", ns.srv, "link", "set", "lo", "up"],
    ["ip", "-n", ns.cli, "link", "set", "lo", "up"],
  ];
  for (const step of steps) {
    const r = sh(step);
    if (!r.ok) {
      teardown();
      throw new Error(`This spec needs network namespaces (run as root with iproute2): ${step.join(" ")}: ${r.out.trim()}`);
    }
  }
  return { ns, addr, inNs: (where) => ["ip", "netns", "exec", ns[where]], teardown };
}

/**
 * Debian Chromium started inside a namespace (Playwright talks to it over a pipe): its requests come from that
 * namespace's address. `dir` holds the small wrapper script.
 */
export async function launchChromiumIn(pair: NetnsPair, where: Where, dir: string): Promise<Browser> {
  const wrapper = path.join(dir, `chromium-in-${where}.sh`);
  writeFileSync(wrapper, `#!/bin/sh\nexec ip netns exec ${pair.ns[where]} ${process.env.CHROMIUM_PATH || "/usr/bin/chromium"} "$@"\n`);
  chmodSync(wrapper, 0o755);
  return chromium.launch({ executablePath: wrapper, args: ["--no-sandbox", "--disable-gpu", "--no-first-run"] });
}

/**
 * A process a spec starts (a command run in a namespace): offline (no model key), in a process group of its own
 * (stopAll ends it), added to `children`. `onOutput` hears its stderr, and its stdout unless the spec talks to it
 * over stdin and stdout (`interactive`).
 */
export function startChild(
  children: ChildProcess[],
  cmd: string[],
  env: Record<string, string>,
  opts: { onOutput?: (s: string) => void; interactive?: boolean } = {},
): ChildProcess {
  const child = spawn(cmd[0], cmd.slice(1), {
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", OPENAI_API_KEY: "", ...env },
    stdio: [opts.interactive ? "pipe" : "ignore", "pipe", "pipe"],
    detached: true,
  });
  if (!opts.interactive) child.stdout!.on("data", (d) => opts.onOutput?.(String(d)));
  child.stderr!.on("data", (d) => opts.onOutput?.(String(d)));
  children.push(child);
  return child;
}

export interface CurlReply {
  status: number;
  /** The reply's headers, where the request named a `headerFile`. */
  headers: string;
  body: string;
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies of many routes, read loosely by the assertions
  json: () => any;
}

export interface CurlOptions {
  headers?: Record<string, string>;
  json?: unknown;
  /** An upload of this file as the form field `files`. */
  file?: string;
  /** Multipart form fields. */
  fields?: Record<string, string>;
  /** A url-encoded form body. */
  form?: string;
  /** Where curl writes the reply's headers (read back into `headers`). */
  headerFile?: string;
}

/** One HTTP request with curl, run in `where`'s namespace of `pair`. */
export function curlIn(pair: NetnsPair, where: Where, method: string, url: string, opts: CurlOptions = {}): CurlReply {
  const args = [...pair.inNs(where), "curl", "-sS", "-m", "60", "-X", method, "-o", "-", "-w", "\n%{http_code}"];
  if (opts.headerFile) args.push("-D", opts.headerFile);
  for (const [k, v] of Object.entries(opts.headers ?? {})) args.push("-H", `${k}: ${v}`);
  let input: string | undefined;
  if (opts.json !== undefined) {
    args.push("-H", "content-type: application/json", "-H", "accept: application/json, text/event-stream", "--data-binary", "@-");
    input = JSON.stringify(opts.json);
  }
  if (opts.file) args.push("-F", `files=@${opts.file}`);
  for (const [k, v] of Object.entries(opts.fields ?? {})) args.push("-F", `${k}=${v}`);
  if (opts.form !== undefined) {
    args.push("-H", "content-type: application/x-www-form-urlencoded", "--data-binary", "@-");
    input = opts.form;
  }
  args.push(url);
  const r = spawnSync(args[0], args.slice(1), { input, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  const out = r.stdout ?? "";
  const cut = out.lastIndexOf("\n");
  const body = out.slice(0, cut);
  const headers = opts.headerFile && existsSync(opts.headerFile) ? readFileSync(opts.headerFile, "utf8") : "";
  return { status: Number(out.slice(cut + 1)), headers, body, json: () => JSON.parse(body) };
}

/** Stops every process group a spec started (they were spawned detached), then removes the namespaces. */
export function stopAll(children: readonly ChildProcess[], pair: NetnsPair | undefined): void {
  for (const c of children) {
    try {
      process.kill(-c.pid!, "SIGTERM");
    } catch {
      // already gone
    }
  }
  pair?.teardown();
}
