import { describe, expect, it } from "vitest";
import type { ChatUIMessage } from "@/lib/agent/protocol";
import { checkedAnswer, checkedMarkdown } from "./checked-answer";
import { conversationMarkdown } from "./export";
import { S } from "./share-strings";
import { T } from "./strings";
import { testCitation } from "./test-citations";

const citation = testCitation;

// The model cited the FAQ [2] for the handbook's sentence and invented the second one; the check moved the first
// citation to the handbook [1] and marked the second sentence.
const written = "Employees get 20 days of leave [2]. Interns get 45 days on Mars [1].";
const checked = "Employees get 20 days of leave [1]. Interns get 45 days on Mars [1].";
const answer = {
  id: "a1",
  role: "assistant",
  metadata: { mode: "llm", model: "gpt-test" },
  parts: [
    { type: "text", text: written },
    { type: "data-citations", data: { citations: [citation(1, "handbook", "Employee Handbook"), citation(2, "faq", "Nimbus FAQ")] } },
    {
      type: "data-check",
      data: {
        text: checked,
        sentences: [
          { text: "Employees get 20 days of leave", end: checked.indexOf(".") + 1, citations: [{ n: 1, support: 1, from: 2 }] },
          { text: "Interns get 45 days on Mars", end: checked.length, citations: [{ n: 1, support: 0.1 }], unsupported: "citation" },
        ],
      },
    },
  ],
} as unknown as ChatUIMessage;

const en = { ...T.en, ...S.en };
const page = (p: number) => `p. ${p}`;

describe("the checked rendering of an answer", () => {
  it("is the text the check left, numbered and referenced as the chat shows it, with the model that wrote it", () => {
    const a = checkedAnswer(answer);
    expect(a.text).toBe(checked);
    expect(a.shown).toBe(`${checked.slice(0, checked.indexOf(".") + 1)} [!](#check-0) Interns get 45 days on Mars [1]. [!](#check-1)`);
    expect(a.cited.map((c) => [c.n, c.document.title])).toEqual([[1, "Employee Handbook"]]);
    expect(a.model).toBe("gpt-test");
    // While it streams there is no check yet: the model's own text.
    expect(checkedAnswer(answer, true).text).toBe(written);
  });

  it("as Markdown carries the check's notes with display numbers, and only the references the checked text cites", () => {
    const md = checkedMarkdown(checkedAnswer(answer), en, { heading: "References", page });
    expect(md).toBe(
      "Employees get 20 days of leave [1]. *(citation corrected (was [2]))* Interns get 45 days on Mars [1]. *(not supported by the sources)*\n\nReferences\n[1] Employee Handbook\n",
    );
    const zh = checkedMarkdown(checkedAnswer(answer), { ...T.zh, ...S.zh }, { heading: "参考来源", page });
    expect(zh).toContain("*(引用已更正（原为 [2]）)*");
    expect(zh).toContain("*(来源中没有依据)*");
  });

  it("is what the exported conversation shows, with 'Written by <model>'", () => {
    const question = { id: "q1", role: "user", parts: [{ type: "text", text: "How much leave?" }] } as unknown as ChatUIMessage;
    const md = conversationMarkdown("Leave", [question, answer], en, "http://kb.test", { kbs: [], documents: [], date: "today" });
    expect(md).toContain("Employees get 20 days of leave [1]. *(citation corrected (was [2]))*");
    expect(md).toContain("Interns get 45 days on Mars [1]. *(not supported by the sources)*");
    expect(md).toContain("[1] [Employee Handbook](http://kb.test/documents/handbook?chunk=handbook-c1)");
    expect(md).not.toContain("Nimbus FAQ");
    expect(md).toContain("_Written by gpt-test_");
  });
});
