import { describe, expect, it } from "vitest";
import type { Citation } from "@/lib/agent/protocol";
import { pickExamples } from "./EmptyState";
import { answerWithReferences, displayCitations, documentHref, plainText, relevance, repeatsFaq, snippet } from "./sources";

const cite = (n: number, over: Partial<Citation> = {}): Citation => ({
  n,
  chunk_id: `c${n}`,
  document: { id: `d${n}`, title: `Doc ${n}`, source: `doc${n}.md` },
  kb: "default",
  heading: `Doc ${n} › Section ${n}`,
  text: `## Section ${n}\n\nThe **answer** number ${n}.`,
  score: 1 / (60 + n),
  ...over,
});

describe("sources as shown", () => {
  it("numbers cited sources 1..k in order of first citation, then the rest", () => {
    const all = [cite(1), cite(2), cite(3)];
    const { byN, cited, others } = displayCitations("Second first [2], then third [3] and [2] again.", all);
    expect(cited.map((c) => [c.chunk_id, c.n])).toEqual([
      ["c2", 1],
      ["c3", 2],
    ]);
    expect(others.map((c) => [c.chunk_id, c.n])).toEqual([["c1", 3]]);
    expect(byN.get(2)?.n).toBe(1);
  });

  it("copies the answer with display numbers and a reference list", () => {
    const { byN } = displayCitations("Leave is 25 days [2]. Sick leave [3].", [cite(1), cite(2), cite(3, { page: 4 })]);
    const copied = answerWithReferences("Leave is 25 days [2]. Sick leave [3].", byN, "References", (p) => `p. ${p}`);
    expect(copied).toBe("Leave is 25 days [1]. Sick leave [2].\n\nReferences\n[1] Doc 2 › Section 2\n[2] Doc 3 › Section 3 · p. 4\n");
  });

  it("tells an answer that only repeats a FAQ entry from one that says more", () => {
    const faq = "Book the wombat studio in the **Rooms** app.\n\nBookings need a *team code*.";
    expect(repeatsFaq("From the knowledge base:\n\n- Book the wombat studio in the Rooms app. [1]", faq)).toBe(true);
    expect(repeatsFaq("知识库中的相关内容：\n\n- Bookings need a team code. [1]", faq)).toBe(true);
    expect(repeatsFaq("Use the Rooms app [1]; the front desk can also book it [2].", faq)).toBe(false);
    expect(repeatsFaq("", faq)).toBe(false);
  });

  it("strips Markdown from a chunk for its one-line snippet", () => {
    expect(snippet(cite(1))).toBe("The answer number 1.");
    expect(plainText("### Can I get a refund?\n- Yes, within [30 days](http://x).")).toBe("Can I get a refund? Yes, within 30 days.");
    expect(snippet({ text: "x".repeat(300) }).length).toBe(160);
  });

  it("labels relevance relative to the best chunk, never as a raw score", () => {
    expect(relevance(0.018, 0.02)).toBe("high");
    expect(relevance(0.012, 0.02)).toBe("medium");
    expect(relevance(0.002, 0.02)).toBe("low");
    expect(relevance(Number.NaN, 0.02)).toBe("low");
    // A cited chunk is a strong match only when it supports the sentence citing it (the citation check).
    expect(relevance(0.02, 0.02, 0.95)).toBe("high");
    expect(relevance(0.02, 0.02, 0.6)).toBe("medium");
    expect(relevance(0.02, 0.02, 0.2)).toBe("low");
    // The exact source of the sentence (a FAQ entry, scored on a scale of its own) is a strong match.
    expect(relevance(0.001, 0.02, 1)).toBe("high");
  });

  it("links a citation to its document view at the chunk", () => {
    expect(documentHref(cite(1, { chunk_id: "a b" }))).toBe("/documents/d1?chunk=a%20b");
  });
});

describe("example questions", () => {
  it("keeps only those in the UI language (no English template on a Chinese screen) and drops CSV row-range and sheet-row headings", () => {
    const all = [
      "Tell me about annual leave",
      "Tell me about rows 1–3",
      "Tell me about inventory, row 27",
      "介绍一下病假",
      "How do refunds work?",
      "介绍一下报销流程",
    ];
    expect(pickExamples(all, "zh")).toEqual(["介绍一下病假", "介绍一下报销流程"]);
    expect(pickExamples(all, "en", 2)).toEqual(["Tell me about annual leave", "How do refunds work?"]);
  });
});
