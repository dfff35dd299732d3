/**
 * `npm run ask` end to end: the real CLI process (tsx) over a real LanceDB store in a temp dir, answering
 * through its own MCP endpoint with the offline answerer, for an English and a Chinese question.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOfflineEmbedder } from "@/lib/embed";
import { ingestDocument } from "@/lib/ingest";
import { openStore } from "@/lib/store";

const run = promisify(execFile);
const repoRoot = path.resolve(import.meta.dirname, "..");
const enc = new TextEncoder();
let dir: string;

const EN = `# Travel policy

## Per diem

The per diem for overnight business travel is 80 euros per day. Receipts are not needed for the per diem.

## Booking

Book flights through the travel desk at least ten days before departure.
`;

const ZH = `# 行政常见问题

问：如何申请停车位？
答：在行政系统提交停车位申请，审批通过后三个工作日内分配车位。
`;

async function ask(args: string[], extraEnv: Record<string, string | undefined> = {}) {
  const env = {
    ...process.env,
    DATA_DIR: dir,
    OPENAI_API_KEY: "",
    MCP_URL: "",
    EMBEDDING_DIMENSION: "256",
    EMBEDDING_PROVIDER: "offline",
    ...extraEnv,
  };
  return run("npm", ["run", "--silent", "ask", "--", ...args], { cwd: repoRoot, env, timeout: 120_000 });
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "ask-cli-"));
  const store = await openStore({ uri: dir, embedder: createOfflineEmbedder(256) });
  await ingestDocument(store, { filename: "travel.md", data: enc.encode(EN), kb: "default" });
  await ingestDocument(store, { filename: "行政问答.md", data: enc.encode(ZH), kb: "admin" });
  await store.close();
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("npm run ask", { timeout: 240_000 }, () => {
  it("answers an English question with numbered sources", async () => {
    const { stdout } = await ask(["What is the per diem for overnight travel?"]);
    expect(stdout).toMatch(/The per diem for overnight business travel is 80 euros per day\.[^\n]*\[1\]/);
    expect(stdout).toMatch(/Sources:\n {2}\[1\] Travel policy › Per diem \(travel\.md\)/);
  });

  it("answers a Chinese question from its FAQ entry, as JSON, limited to one knowledge base; logs go to stderr", async () => {
    // Logging on, as outside the tests (Vitest's VITEST variable silences it): stdout is still one JSON document.
    const { stdout, stderr } = await ask(["停车位怎么申请？", "--kb", "admin", "--json"], { VITEST: undefined, LOG_LEVEL: "info" });
    expect(stderr).toMatch(/"level":30/);
    const r = JSON.parse(stdout) as {
      answer: string;
      metadata: { mode: string };
      sources: { n: number; type: string; heading: string; cited: boolean; kb: string }[];
    };
    expect(r.metadata.mode).toBe("offline");
    expect(r.answer).toContain("审批通过后三个工作日内分配车位");
    expect(r.answer).toMatch(/\[1\]/);
    expect(r.sources[0]).toMatchObject({ n: 1, type: "faq", heading: "如何申请停车位？", cited: true, kb: "admin" });
  });

  it("fails with usage when no question is given", async () => {
    await expect(ask([])).rejects.toMatchObject({ code: 2 });
  });
});
