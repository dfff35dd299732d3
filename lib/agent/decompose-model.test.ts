/**
 * The model path's decomposition step through runChat: a real store and MCP endpoint over HTTP, and a
 * LanguageModelV4 that behaves like an LLM (it splits the question when asked to, then cites what it read).
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOfflineEmbedder } from "@/lib/embed";
import { ingestDocument } from "@/lib/ingest";
import { openStore, type Store } from "@/lib/store";
import { askChat, OFFLINE_CHAT, serveMcp } from "@/scripts/eval-chat/harness";
import { DECOMPOSE_INSTRUCTIONS, parseParts } from "./decompose-model";
import { streamOf, TEST_USAGE } from "./test-model";
import { resultsOf } from "./tools";

const HANDBOOK = `# Handbook

## Sick leave

A doctor's note is required when you are sick for more than 3 consecutive days.

## Expenses

Expenses up to 250 euros are approved by your manager; anything above also needs the finance team.
`;

let dir: string;
let store: Store;
let mcp: Awaited<ReturnType<typeof serveMcp>>;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "decompose-test-"));
  store = await openStore({ uri: dir, embedder: createOfflineEmbedder(256) });
  await ingestDocument(store, { filename: "handbook.md", kb: "default", data: new TextEncoder().encode(HANDBOOK) });
  mcp = await serveMcp(store);
});

afterAll(async () => {
  await mcp?.close();
  await store?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const usage = TEST_USAGE;

/** Splits at " and " when asked to decompose; otherwise cites the first block of every search it read. */
function llmLike(log: LanguageModelV4CallOptions[]): LanguageModelV4 {
  const system = (o: LanguageModelV4CallOptions) =>
    o.prompt
      .filter((m) => m.role === "system")
      .map((m) => m.content)
      .join("");
  return {
    specificationVersion: "v4",
    provider: "test",
    modelId: "llm-like",
    supportedUrls: {},
    async doGenerate(o) {
      log.push(o);
      const q = o.prompt
        .filter((m) => m.role === "user")
        .flatMap((m) => m.content)
        .map((p) => (p.type === "text" ? p.text : ""))
        .join("");
      const text = system(o).startsWith("You split questions") ? q.replace(/\s+and\s+/, "?\n").replace(/^\w/, (c) => c) : q;
      return { content: [{ type: "text", text }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] };
    },
    async doStream(o) {
      log.push(o);
      const results = o.prompt
        .filter((m) => m.role === "tool")
        .flatMap((m) => m.content)
        .map((p) => (p.type === "tool-result" ? resultsOf(p.output) : []));
      const line = (t: string) => t.split("\n").find((l) => l.trim() && !l.startsWith("#")) ?? t;
      const text = results.map(([first]) => `${line(first.text)} [${first.ref}]`).join("\n");
      const parts: LanguageModelV4StreamPart[] = [
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: text },
        { type: "text-end", id: "t" },
        { type: "finish", usage, finishReason: { unified: "stop", raw: "stop" } },
      ];
      return streamOf(parts);
    },
  };
}

describe("decomposition step with a model", () => {
  it("splits a two-part question, searches each part in parallel as its own visible search, and the model cites both", async () => {
    const log: LanguageModelV4CallOptions[] = [];
    const turn = await askChat(
      mcp.url,
      [{ role: "user", content: "What is the sick-leave policy and who approves expenses?" }],
      { ...OFFLINE_CHAT, apiKey: "x" },
      llmLike(log),
    );
    expect(turn.errors).toEqual([]);
    // The decomposition call: no tools, the decomposition instructions.
    expect(log[0].tools ?? []).toEqual([]);
    expect(log[0].prompt[0]).toMatchObject({ role: "system", content: DECOMPOSE_INSTRUCTIONS });
    // Two searches, shown in the UI stream before the answer.
    expect(turn.queries).toEqual(["What is the sick-leave policy?", "who approves expenses?"]);
    const kinds = turn.events.map((e) => e.type);
    expect(kinds.indexOf("tool-output-available")).toBeLessThan(kinds.indexOf("text-delta"));
    expect(turn.events.filter((e) => e.type === "tool-output-available")).toHaveLength(2);
    // The model's first step read both results, and its answer cites a chunk of each.
    const toolResults = log[1].prompt.filter((m) => m.role === "tool").flatMap((m) => m.content);
    expect(toolResults).toHaveLength(2);
    expect(turn.text).toMatch(/doctor's note[^\n]*\[\d+\]/);
    expect(turn.text).toMatch(/approved by your manager[^\n]*\[\d+\]/);
    const cites = turn.events.filter((e) => e.type === "data-citations").at(-1)!.data as { citations: { n: number; text: string }[] };
    for (const m of turn.text.matchAll(/([^\n]*) \[(\d+)\]/g)) {
      expect(cites.citations.find((c) => c.n === Number(m[2]))?.text).toContain(m[1].slice(0, 20));
    }
  });

  it("skips the step for a simple question", async () => {
    const log: LanguageModelV4CallOptions[] = [];
    await askChat(mcp.url, [{ role: "user", content: "Who approves expenses?" }], { ...OFFLINE_CHAT, apiKey: "x" }, llmLike(log));
    expect(log.every((o) => !String(o.prompt[0]?.content).startsWith("You split questions"))).toBe(true);
  });

  it("keeps the question whole when the model's reply is not a list of 2–4 questions", () => {
    expect(parseParts("What is the sick-leave policy?", "q")).toEqual(["q"]);
    expect(parseParts("1. A?\n2. B?", "q")).toEqual(["A?", "B?"]);
    expect(parseParts("a\nb\nc\nd\ne", "q")).toEqual(["q"]);
  });
});
