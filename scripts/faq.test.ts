/** `npm run faq -- import|export` on a real LanceDB store in a temp dir (the real CLI process). */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const repoRoot = path.resolve(import.meta.dirname, "..");
let dir: string;

const faq = (args: string[]) =>
  run("npm", ["run", "--silent", "faq", "--", ...args], {
    cwd: repoRoot,
    env: {
      ...process.env,
      DATA_DIR: path.join(dir, "data"),
      EMBEDDING_DIMENSION: "128",
      EMBEDDING_PROVIDER: "offline",
      KNOWLEDGE_DIR: path.join(dir, "none"),
    },
    timeout: 120_000,
  });

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "faq-cli-"));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("npm run faq", { timeout: 240_000 }, () => {
  it("imports a CSV into a knowledge base and exports it as JSON Lines", async () => {
    const csv = path.join(dir, "in.csv");
    await writeFile(
      csv,
      'question,answer,phrasings\nHow do I order a badge?,"Ask reception, it takes a day.",badge order | new badge\n如何预订会议室？,在会议室系统中预订。,\n',
    );
    const imported = await faq(["import", csv, "--kb", "office"]);
    expect(imported.stdout).toContain("Imported 2 FAQ entries");
    const out = path.join(dir, "out.jsonl");
    await faq(["export", out, "--kb", "office"]);
    const rows = (await readFile(out, "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { question: string; answer: string; kb: string; phrasings: string[] });
    expect(rows.map((r) => r.question).sort()).toEqual(["How do I order a badge?", "如何预订会议室？"]);
    expect(rows.find((r) => r.question.startsWith("How"))).toMatchObject({
      kb: "office",
      answer: "Ask reception, it takes a day.",
      phrasings: ["badge order", "new badge"],
    });
  });

  it("refuses a malformed file without storing any of it", async () => {
    const bad = path.join(dir, "bad.csv");
    await writeFile(bad, "question,answer\nGood question?,Good answer.\n,missing question\n");
    await expect(faq(["import", bad])).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining("Entry 2: question") });
    const out = path.join(dir, "default.csv");
    expect((await faq(["export", out, "--kb", "default"])).stdout).toContain("Exported 0 FAQ entries");
  });
});
