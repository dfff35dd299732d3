import { describe, expect, it } from "vitest";
import { type PlainMessage, selectHistory, toPlainMessages } from "./memory";

const ui = (role: string, text: string, extra: { type: string; [k: string]: unknown }[] = []) => ({
  role,
  parts: [...extra, { type: "text", text }],
});

describe("toPlainMessages", () => {
  it("keeps question and answer text, drops tool parts and old citation markers", () => {
    const out = toPlainMessages([
      ui("user", "How many leave days?"),
      ui("assistant", "Twenty days [1].", [{ type: "dynamic-tool", toolName: "search_knowledge", output: { big: "x".repeat(1000) } }]),
      ui("user", "And sick leave?"),
    ]);
    expect(out).toEqual([
      { role: "user", text: "How many leave days?" },
      { role: "assistant", text: "Twenty days." },
      { role: "user", text: "And sick leave?" },
    ]);
  });

  it("keeps the later of two consecutive user messages (a retry after a failure)", () => {
    expect(toPlainMessages([ui("user", "first"), ui("user", "second")])).toEqual([{ role: "user", text: "second" }]);
  });
});

describe("selectHistory", () => {
  const turns = (n: number, size = 10): PlainMessage[] =>
    Array.from({ length: n }, (_, i) => [
      { role: "user" as const, text: `q${i}`.padEnd(size, ".") },
      { role: "assistant" as const, text: `a${i}`.padEnd(size, ".") },
    ]).flat();

  it("keeps the last turns, current question included", () => {
    const msgs = [...turns(12), { role: "user" as const, text: "now?" }];
    const out = selectHistory(msgs, { maxTurns: 8, maxChars: 100_000 });
    expect(out.length).toBe(7 * 2 + 1);
    expect(out[0]).toEqual({ role: "user", content: "q5........" });
    expect(out.at(-1)).toEqual({ role: "user", content: "now?" });
  });

  it("drops the oldest turns first when over the character budget", () => {
    const msgs = [...turns(5, 100), { role: "user" as const, text: "now?" }];
    // Each earlier turn is 200 chars: 450 leaves room for two of them.
    const out = selectHistory(msgs, { maxTurns: 8, maxChars: 450 });
    expect(out.map((m) => (m.content as string).slice(0, 2))).toEqual(["q3", "a3", "q4", "a4", "no"]);
  });

  it("always keeps the current question, even alone over budget", () => {
    const out = selectHistory([...turns(2), { role: "user", text: "x".repeat(500) }], { maxTurns: 8, maxChars: 100 });
    expect(out).toEqual([{ role: "user", content: "x".repeat(500) }]);
  });

  it("returns nothing when the conversation does not end with a question", () => {
    expect(selectHistory(turns(1), { maxTurns: 8, maxChars: 1000 })).toEqual([]);
  });
});
