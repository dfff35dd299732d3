import { describe, expect, it } from "vitest";
import { exampleQuestions, questionFor } from "./examples";
import { contentUnits } from "./extractive";

describe("exampleQuestions", () => {
  const docs = [
    {
      title: "Employee Handbook",
      headings: [
        "Employee Handbook",
        "Employee Handbook › Leave",
        "Employee Handbook › Leave › Annual leave",
        "Employee Handbook › Leave › Sick leave",
      ],
    },
    { title: "员工手册", headings: ["员工手册 › 概述", "员工手册 › 请假 › 病假", "员工手册 › 报销"] },
  ];

  it("draws one topic per document in turn, skipping titles and generic headings", () => {
    const qs = exampleQuestions(docs, 4);
    expect(qs.length).toBe(4);
    expect(qs[0]).toBe("Tell me about annual leave");
    expect(qs[1]).toBe("介绍一下病假");
    expect(qs[2]).toBe("Tell me about sick leave");
    // "Leave" has sub-sections, so it is not offered: too broad.
    expect(qs).not.toContain("Tell me about leave");
    expect(qs).not.toContain("Tell me about employee handbook");
    expect(qs.some((q) => q.includes("概述"))).toBe(false);
    expect(new Set(qs).size).toBe(qs.length);
  });

  it("returns nothing for an empty knowledge base", () => {
    expect(exampleQuestions([], 4)).toEqual([]);
    expect(exampleQuestions([{ title: "x", headings: [] }], 4)).toEqual([]);
  });

  it("asks FAQ headings as they are", () => {
    expect(questionFor("Can I get a refund?")).toBe("Can I get a refund?");
    expect(questionFor("How does sync work")).toBe("How does sync work?");
  });

  it("phrases questions so that only the topic is content", () => {
    expect(contentUnits(questionFor("Annual leave"), { question: true }).words).toEqual(["annual", "leav"]);
    expect(contentUnits(questionFor("病假"), { question: true }).cjkRuns).toEqual(["病假"]);
  });
});
