import { isStepCount, streamText, tool } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { CitationRegistry } from "./citations";
import { createOfflineModel, isRefusal, OFFLINE_TEXT, sentenceDeltas } from "./offline-model";
import { modelOutputOf, turnSearchResult } from "./tools";

const corpus: { chunk_id: string; title: string; heading: string; text: string; context_before?: string }[] = [
  {
    chunk_id: "c1",
    title: "Employee Handbook",
    heading: "Leave › Annual leave",
    text: "Full-time employees receive 20 days of annual leave per year. Requests go to your manager.",
  },
  {
    chunk_id: "c2",
    title: "Employee Handbook",
    heading: "Leave › Sick leave",
    text: "Sick leave of more than two days needs a doctor's note.",
  },
  { chunk_id: "c3", title: "员工手册", heading: "报销", text: "员工先填写报销申请单，附上发票原件。部门经理审批后交财务部。" },
  // Chunks overlap and are cut at words: this one starts inside a sentence its context completes.
  {
    chunk_id: "c4",
    title: "Network history",
    heading: "Syndication",
    text: "Films selling programs to networks it did not own. Satellites later ended the need for it.",
    context_before: "The idea was a network of affiliates. In 1959, the rerun activity was completed with syndication, with ABC",
  },
];

/** A real AI SDK tool with the MCP search tool's name, searching the small corpus above by word overlap. */
function searchTool(calls: unknown[]) {
  const registry = new CitationRegistry();
  return tool({
    description: "Search the knowledge base",
    inputSchema: z.object({ query: z.string(), top_k: z.number().optional() }),
    execute: async ({ query, top_k }) => {
      calls.push({ query, top_k });
      const words = query
        .toLowerCase()
        .split(/[^\p{L}\p{N}]+/u)
        .filter((w) => w.length > 2);
      const hits = corpus.filter(
        (c) =>
          words.some((w) => c.text.toLowerCase().includes(w) || c.heading.toLowerCase().includes(w)) ||
          (/[报销]/.test(query) && c.chunk_id === "c3"),
      );
      const cites = registry.add(
        hits.map((h) => ({
          chunk_id: h.chunk_id,
          document: { id: h.title, title: h.title, source: "x.md" },
          kb: "default",
          heading: h.heading,
          text: h.text,
          score: 1,
          ...(h.context_before ? { context_before: h.context_before } : {}),
        })),
      );
      return turnSearchResult(cites, query);
    },
    toModelOutput: ({ output }) => modelOutputOf(output),
  });
}

async function ask(question: string, avoid?: string[]) {
  const calls: unknown[] = [];
  const result = streamText({
    model: createOfflineModel({ avoid }),
    messages: [{ role: "user", content: question }],
    tools: { search_knowledge: searchTool(calls) },
    stopWhen: isStepCount(4),
  });
  let streamed = "";
  let deltas = 0;
  for await (const part of result.stream) {
    if (part.type === "text-delta") {
      streamed += part.text;
      deltas++;
    }
  }
  const steps = await result.steps;
  return { calls, text: streamed, deltas, steps };
}

describe("offline answerer", () => {
  it("regenerates with other sentences than the answers already given", async () => {
    const first = await ask("How many days of annual leave do full-time employees get?");
    const again = await ask("How many days of annual leave do full-time employees get?", [first.text]);
    expect(again.text).not.toBe(first.text);
    expect(again.text).not.toContain("Full-time employees receive 20 days");
    console.log(JSON.stringify([first.text, again.text]));
  });

  it("says so when Regenerate finds no other passage than the answers already given", async () => {
    const question = "Who needs a doctor's note when sick?";
    const first = await ask(question);
    expect(first.text).toContain("Sick leave of more than two days needs a doctor's note. [1]");
    expect(first.text).not.toContain(OFFLINE_TEXT.en.noOther);
    const again = await ask(question, [first.text]);
    expect(again.text.startsWith(`${OFFLINE_TEXT.en.noOther}\n\n`)).toBe(true);
    expect(again.text).toContain("Sick leave of more than two days needs a doctor's note. [1]");
    const zh = await ask("报销时要先填写什么？");
    expect((await ask("报销时要先填写什么？", [zh.text])).text).toBe(`${OFFLINE_TEXT.zh.noOther}\n\n${zh.text}`);
  });

  it("searches with the question, then quotes the supporting sentence with its [n]", async () => {
    const { calls, text, deltas, steps } = await ask("How many days of annual leave do full-time employees get?");
    expect(calls).toEqual([{ query: "How many days of annual leave do full-time employees get?", top_k: 5 }]);
    expect(steps.length).toBe(2);
    expect(steps[0].finishReason).toBe("tool-calls");
    expect(text).toContain("Full-time employees receive 20 days of annual leave per year. [1]");
    // Streamed sentence by sentence: the intro, then each quoted sentence with its marker.
    expect(deltas).toBeGreaterThanOrEqual(2);
  });

  it("quotes a sentence the chunk was cut inside whole, from the chunk's context", async () => {
    const { text } = await ask("When did ABC Films begin selling programs to other networks?");
    expect(text).toContain(
      "In 1959, the rerun activity was completed with syndication, with ABC Films selling programs to networks it did not own. [1]",
    );
  });

  it("streams an answer in whole sentences, each with its citation markers", () => {
    const text =
      "From the knowledge base:\n\n- Full-time employees get 20 days. Part-time staff get a pro-rated amount. [1]\n- 满 1 年的，每年 10 天；满 5 年的，每年 15 天。 [2]";
    expect(sentenceDeltas(text)).toEqual([
      "From the knowledge base:\n\n",
      "- Full-time employees get 20 days. ",
      "Part-time staff get a pro-rated amount. [1]\n",
      "- 满 1 年的，每年 10 天；满 5 年的，每年 15 天。 [2]",
    ]);
    expect(sentenceDeltas(text).join("")).toBe(text);
  });

  it("answers a Chinese question in Chinese with the right number", async () => {
    const { text } = await ask("报销时要先填写什么？");
    expect(text).toContain(OFFLINE_TEXT.zh.intro);
    expect(text).toMatch(/员工先填写报销申请单，附上发票原件。 \[\d\]/);
  });

  it("says the knowledge base does not contain the answer, with no citation", async () => {
    const { calls, text } = await ask("What is the boiling point of mercury?");
    expect(calls.length).toBe(1);
    expect(text).toBe(OFFLINE_TEXT.en.notFound);
    expect(text).not.toMatch(/\[\d+\]/);
    const zh = await ask("火星基地在哪里？");
    expect(zh.text).toBe(OFFLINE_TEXT.zh.notFound);
  });

  it("limited to picked documents, names the selected sources in its refusal (a refusal still)", async () => {
    for (const [question, words] of [
      ["What is the boiling point of mercury?", OFFLINE_TEXT.en],
      ["火星基地在哪里？", OFFLINE_TEXT.zh],
    ] as const) {
      const result = streamText({
        model: createOfflineModel({ scoped: true }),
        messages: [{ role: "user", content: question }],
        tools: { search_knowledge: searchTool([]) },
        stopWhen: isStepCount(4),
      });
      const text = await result.text;
      expect(text).toBe(words.scopedNotFound);
      expect(isRefusal(text)).toBe(true);
    }
  });

  it("answers without searching when it may not call tools", async () => {
    const result = streamText({
      model: createOfflineModel(),
      messages: [{ role: "user", content: "annual leave" }],
      tools: { search_knowledge: searchTool([]) },
      toolChoice: "none",
    });
    expect(await result.text).toBe(OFFLINE_TEXT.en.notFound);
  });
});
