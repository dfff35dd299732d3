import { describe, expect, it } from "vitest";
import { checkCitations } from "@/lib/agent/support";
import type { Note } from "@/lib/notes/schema";
import { noteFileName, noteMarkdown } from "./markdown";

const T = {
  references: "Sources",
  notSupported: "not supported by the sources",
  citationMoved: "citation corrected (was [{was}])",
  page: "p. {page}",
  writtenBy: "Written by {model}",
  asked: "Question: {question}",
};

const cite = (n: number, id: string, text: string) => ({
  n,
  chunk_id: `c${n}`,
  kb: "hr",
  heading: "Leave",
  text,
  score: 1,
  document: { id, title: `Doc ${id}`, source: `${id}.md` },
});

describe("a note as Markdown", () => {
  it("keeps the checked text with its notes, who wrote it, and its sources as links to their passages", () => {
    const citations = [
      cite(1, "handbook", "Full-time employees receive 20 days of annual leave per year."),
      cite(2, "faq", "Annual plans can be refunded in full within 14 days of purchase."),
    ];
    const check = checkCitations(
      "- Full-time employees receive 20 days of annual leave per year [2].\n- Interns receive 45 days of leave on Mars [1].",
      citations,
    );
    const note: Note = {
      id: "n1",
      kind: "answer",
      title: "Annual leave",
      kbs: ["hr"],
      createdAt: "",
      updatedAt: "",
      text: check.text,
      check,
      citations,
      question: "How much leave?",
      model: "fake-model",
    };
    const md = noteMarkdown(note, T, "https://kb.example");
    expect(md.startsWith("# Annual leave\n\n_Question: How much leave?_\n")).toBe(true);
    expect(md).toContain("20 days of annual leave per year [1]. _(citation corrected (was \\[2\\]))_");
    expect(md).toContain("on Mars [1]. _(not supported by the sources)_");
    expect(md).toContain("## Sources\n[1] [Doc handbook");
    expect(md).toContain("(https://kb.example/documents/handbook?chunk=c1)");
    expect(md).not.toContain("Doc faq");
    expect(md.trimEnd().endsWith("_Written by fake-model_")).toBe(true);
    expect(noteFileName('a/b: "c"?')).toBe("a b c.md");
  });
});
