/**
 * git, run by a Git source, gets none of the server's secrets (lib/worker/child-env.ts): a `git` first on PATH
 * writes down the environment it was started with, then runs the real one.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveGitRepo } from "@/e2e/helpers/git-server";
import { createOfflineEmbedder } from "@/lib/embed/offline";
import { openStore } from "@/lib/store";
import { restoreEnv } from "@/lib/test-helpers/env";
import { SERVER_SECRETS, setServerSecrets } from "@/lib/test-helpers/server-secrets";
import { tempDirs } from "@/lib/test-helpers/temp-dirs";
import { runningPromise } from "./engine";
import { sourceInputSchema } from "./schema";
import { addSource } from "./service";

const tempDir = tempDirs("git-env-");
const saved = { DATA_DIR: process.env.DATA_DIR, SOURCE_ALLOW_HOSTS: process.env.SOURCE_ALLOW_HOSTS, PATH: process.env.PATH };
let restoreSecrets: () => void;
beforeAll(async () => {
  process.env.DATA_DIR = await tempDir();
  process.env.SOURCE_ALLOW_HOSTS = "127.0.0.1";
  restoreSecrets = setServerSecrets();
});
afterAll(() => {
  restoreSecrets();
  restoreEnv(saved);
});

describe("git's environment", () => {
  it("holds none of the server's secrets, and what git needs", async () => {
    const realGit = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
    const bin = await tempDir();
    const dump = path.join(bin, "env-seen");
    // The test's Git server runs `git http-backend` (GIT_PROJECT_ROOT set) with this process's environment: not written down.
    const script = `#!/bin/sh\nif [ -z "$GIT_PROJECT_ROOT" ]; then env >> '${dump}'; echo ---- >> '${dump}'; fi\nexec '${realGit}' "$@"\n`;
    writeFileSync(path.join(bin, "git"), script);
    chmodSync(path.join(bin, "git"), 0o755);
    const repo = await serveGitRepo(await tempDir());
    const store = await openStore({ uri: await tempDir(), embedder: createOfflineEmbedder(64) });
    try {
      repo.commit({ "docs/a.md": "# Alpha\n\nThe alpaca file." });
      process.env.PATH = `${bin}:${saved.PATH}`;
      const input = sourceInputSchema.parse({ kind: "git", url: repo.url, branch: "main", scheduleMinutes: 0 });
      const source = await addSource(store, "default", input, { admin: true });
      expect(await runningPromise(source.id)).toMatchObject({ added: 1, error: null });
      const seen = readFileSync(dump, "utf8");
      // init, fetch, rev-parse, ls-tree, cat-file: each wrote its environment.
      expect(seen.split("----\n").filter(Boolean).length).toBeGreaterThanOrEqual(5);
      expect(seen).toContain("GIT_TERMINAL_PROMPT=0");
      expect(seen).toContain(`PATH=${bin}:`);
      for (const [name, value] of Object.entries(SERVER_SECRETS)) {
        expect(seen, name).not.toContain(`${name}=`);
        expect(seen, name).not.toContain(value);
      }
      expect(seen).not.toMatch(/^(DATA_DIR|SOURCE_ALLOW_HOSTS)=/m);
    } finally {
      process.env.PATH = saved.PATH;
      await store.close();
      await repo.close();
    }
  });
});
