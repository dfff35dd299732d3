import { describe, expect, it } from "vitest";
import { parseImport, toCsv, toJsonl } from "./transfer";
import type { FaqRecord } from "./types";

const faq: FaqRecord = {
  id: "0123456789abcdef01234567",
  kb: "hr",
  question: "How do I book leave?",
  phrasings: ["booking leave", "leave request"],
  answer: 'In the HR portal, "Leave" tab.\nTwo weeks ahead.',
  tags: ["leave"],
  source: { documentId: null, chunkId: null, label: "UI" },
  origin: "manual",
  status: "accepted",
  createdAt: "2026-01-01T00:00:00Z",
  updatedAt: "2026-01-01T00:00:00Z",
};

describe("FAQ export and import", () => {
  it("round-trips through CSV and JSON Lines", () => {
    for (const [text, format] of [
      [toCsv([faq]), "csv"],
      [toJsonl([faq]), "jsonl"],
    ] as const) {
      const [entry] = parseImport(text, format, "default");
      expect(entry).toMatchObject({
        kb: "hr",
        question: faq.question,
        answer: faq.answer,
        phrasings: faq.phrasings,
        tags: ["leave"],
        origin: "import",
      });
    }
  });

  it("reads Chinese headers, defaults the knowledge base, and rejects a bad row with its number", () => {
    expect(parseImport("问题,答案\n如何申请年假？,在系统中提交。\n", "csv", "default")).toEqual([
      expect.objectContaining({ kb: "default", question: "如何申请年假？", answer: "在系统中提交。" }),
    ]);
    expect(() => parseImport("question,answer\nQ1,A1\n,A2\n", "csv", "default")).toThrow(/Entry 2: question/);
    expect(() => parseImport('{"question":"a","answer":"b"}\nnot json\n', "jsonl", "default")).toThrow(/Line 2/);
  });
});
