/**
 * The command line as a person runs it: `npm run ingest` under the machine's own older Node (Debian's Node 20
 * first on PATH) runs under Node 22 (scripts/node22-run.sh) and stores the file; the backup and restore commands
 * of docs/operations.md, run exactly as written with the default DATA_DIR, give an archive that restores into a
 * fresh folder where the documents are found. Each test makes its own data folder.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { getEmbedder } from "@/lib/embed";
import { ingestDocument } from "@/lib/ingest";
import { openStore } from "@/lib/store";

const ROOT = path.resolve(import.meta.dirname, "..");
const tmp = mkdtempSync(path.join(os.tmpdir(), "kb-cli-"));
const SYSTEM_NODE = "/usr/bin/node";
/** The machine's own Node when it is older than 22 (the case scripts/node22-run.sh exists for), else null. */
const systemNodeMajor = Number(spawnSync(SYSTEM_NODE, ["-p", "process.versions.node.split('.')[0]"], { encoding: "utf8" }).stdout?.trim());
const olderSystemNode = systemNodeMajor > 0 && systemNodeMajor < 22;
const ZORBEL = "# Zorbel gears\n\nThe zorbel gear turns twice for every quill of the north annex.\n";
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The bash blocks of docs/operations.md, in order. */
function docBlocks(): string[] {
  const md = readFileSync(path.join(ROOT, "docs/operations.md"), "utf8");
  return [...md.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1].replace(/^\s{2}/gm, "").trim());
}

function bash(script: string, cwd: string, env: Record<string, string | undefined>) {
  const r = spawnSync("bash", ["-euo", "pipefail", "-c", script], {
    cwd,
    env: { ...process.env, ...env },
    encoding: "utf8",
    timeout: 120_000,
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

async function documentNames(dataDir: string): Promise<string[]> {
  const store = await openStore({ uri: dataDir, embedder: getEmbedder() });
  try {
    return (await store.listDocuments()).map((d) => d.source);
  } finally {
    await store.close();
  }
}

describe("the command line under the machine's own Node", () => {
  it.skipIf(!olderSystemNode)(
    "npm run ingest with the machine's older Node first on PATH stores the file under Node 22 (skipped when /usr/bin/node is absent or 22+)",
    async () => {
      const appDir = path.join(tmp, "ingest");
      mkdirSync(appDir, { recursive: true });
      const doc = path.join(tmp, "zorbel.md");
      writeFileSync(doc, ZORBEL);
      const r = spawnSync("npm", ["run", "ingest", "--", doc], {
        cwd: ROOT,
        env: { ...process.env, PATH: `/usr/bin:/bin:${process.env.PATH}`, DATA_DIR: path.join(appDir, ".data"), LOG_LEVEL: "warn" },
        encoding: "utf8",
        timeout: 240_000,
      });
      const out = `${r.stdout}${r.stderr}`;
      expect(out).not.toMatch(/is not a function/);
      expect(r.status, out).toBe(0);
      expect(out).toMatch(/Using node v2[2-9]/);
      expect(await documentNames(path.join(appDir, ".data"))).toContain("zorbel.md");
    },
    300_000,
  );

  it("the documented backup of the default DATA_DIR restores into a fresh folder with its documents", async () => {
    const appDir = path.join(tmp, "backup");
    const store = await openStore({ uri: path.join(appDir, ".data"), embedder: getEmbedder() });
    try {
      await ingestDocument(store, { filename: "zorbel.md", data: new TextEncoder().encode(ZORBEL) });
    } finally {
      await store.close();
    }
    const [backup, restore] = [docBlocks().find((b) => b.includes("tar czf")), docBlocks().find((b) => b.includes("tar xzf"))];
    expect(backup && restore, "docs/operations.md has a backup and a restore command").toBeTruthy();

    const made = bash(backup!, appDir, { DATA_DIR: undefined });
    expect(made.status, made.out).toBe(0);
    const archive = readdirSync(appDir).find((f) => f.endsWith(".tgz"));
    expect(archive).toBeTruthy();
    expect(statSync(path.join(appDir, archive!)).size).toBeGreaterThan(1000);

    const fresh = path.join(tmp, "restored", "data");
    const restored = bash(restore!, tmp, { DATA_DIR: fresh, BACKUP: path.join(appDir, archive!) });
    expect(restored.status, restored.out).toBe(0);
    expect(existsSync(path.join(fresh, "documents.lance")) || readdirSync(fresh).length > 0).toBe(true);
    expect(await documentNames(fresh)).toContain("zorbel.md");
  }, 120_000);
});
