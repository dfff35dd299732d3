import { describe, expect, it } from "vitest";
import {
  type CorpusPassage,
  type EvalQuestion,
  firstHitRank,
  isDocumentHit,
  isPassageHit,
  overlapShare,
  parseJsonl,
  scoreQuestion,
  sharedSpanLength,
  summarize,
} from "./eval-metrics";

const q: EvalQuestion = { id: "q1", question: "When?", gold_ids: ["p1"], gold_doc: "doc.md", answer: "in 1971", answers: ["1971"] };

describe("sharedSpanLength", () => {
  it("finds containment and suffix/prefix joins of two slices of one text", () => {
    const doc = "alpha beta gamma delta epsilon zeta eta theta";
    const passage = doc.slice(6, 30); // "beta gamma delta epsilon"
    expect(sharedSpanLength(doc.slice(11, 22), passage)).toBe(11); // inside
    expect(sharedSpanLength(doc, passage)).toBe(passage.length); // contains
    expect(sharedSpanLength(doc.slice(0, 16), passage)).toBe(10); // chunk ends with the passage's start
    expect(sharedSpanLength(doc.slice(23, 45), passage)).toBe(7); // chunk starts with the passage's end
    expect(sharedSpanLength("totally different", passage)).toBe(0);
    expect(sharedSpanLength("", passage)).toBe(0);
  });

  it("does not count shared words that are not one contiguous span", () => {
    expect(sharedSpanLength("beta and delta", "beta gamma delta")).toBe(0);
  });

  it("overlapShare is relative to the shorter text", () => {
    expect(overlapShare("abcdef", "cdefgh")).toBeCloseTo(4 / 6);
    expect(overlapShare("cd", "abcdef")).toBe(1);
    expect(overlapShare("", "abc")).toBe(0);
  });
});

describe("hits", () => {
  const gold = ["The embargo began in 1973 and prices rose sharply for a long time afterwards."];
  it("passage hit needs the gold document and the answer or half the gold passage", () => {
    expect(isPassageHit(q, { source: "doc.md", text: "It started in 1971." }, gold)).toBe(true); // any of answers
    expect(isPassageHit(q, { source: "other.md", text: "It started in 1971." }, gold)).toBe(false);
    expect(isPassageHit(q, { source: "doc.md", text: "prices rose sharply for a long time afterwards." }, gold)).toBe(true); // all of chunk in passage
    expect(isPassageHit(q, { source: "doc.md", text: "Something else. The embargo" }, gold)).toBe(false); // 11 of 27 chars
    expect(isPassageHit(q, { source: "doc.md", text: "Unrelated text entirely." }, gold)).toBe(false);
    expect(isDocumentHit(q, { source: "doc.md", text: "" })).toBe(true);
    expect(isDocumentHit(q, { source: "x.md", text: "" })).toBe(false);
  });

  it("scores a question's ranked results", () => {
    const corpus = new Map<string, CorpusPassage>([["p1", { id: "p1", title: "t", text: gold[0], doc: "doc.md" }]]);
    const r = scoreQuestion(
      q,
      [
        { source: "doc.md", text: "nothing relevant here" },
        { source: "other.md", text: "in 1971" },
        { source: "doc.md", text: "prices rose sharply for a long time" },
      ],
      corpus,
    );
    expect(r).toEqual({ passageRank: 3, documentRank: 1 });
    expect(scoreQuestion(q, [], corpus)).toEqual({ passageRank: null, documentRank: null });
  });
});

describe("summarize", () => {
  it("computes recall@k and MRR@10", () => {
    const s = summarize([1, 2, 6, null, 11]);
    expect(s.questions).toBe(5);
    expect(s.recallAt1).toBeCloseTo(1 / 5);
    expect(s.recallAt5).toBeCloseTo(2 / 5);
    expect(s.recallAt10).toBeCloseTo(3 / 5);
    expect(s.mrrAt10).toBeCloseTo((1 + 1 / 2 + 1 / 6) / 5);
    expect(summarize([]).recallAt5).toBe(0);
    expect(firstHitRank([false, true, true])).toBe(2);
    expect(firstHitRank([false])).toBeNull();
  });

  it("parses JSON lines, ignoring blank lines", () => {
    expect(parseJsonl<{ a: number }>('{"a":1}\n\n{"a":2}\n')).toEqual([{ a: 1 }, { a: 2 }]);
  });
});
