/**
 * Two network namespaces joined by a veth pair, made and removed by a spec: `srv` (where the app runs) and
 * `cli` (a remote client). All traffic stays inside them; nothing reaches this host's own addresses. Needs
 * root (`ip netns`): where no namespace can be made the spec fails.
 */
import { type ChildProcess, spawnSync } from "node:child_process";
import { chmodSync, writeFileSync } from "node:fs";
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
