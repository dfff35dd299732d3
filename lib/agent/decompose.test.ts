import { describe, expect, it } from "vitest";
import { askedPart, followUpQuery, isEllipsis, isFollowUp, mayHaveParts, splitQuestion } from "./decompose";

describe("splitQuestion", () => {
  it("splits two questions joined by 'and who/what…'", () => {
    expect(splitQuestion("What is the sick-leave policy and who approves expenses?")).toEqual([
      "What is the sick-leave policy?",
      "who approves expenses?",
    ]);
  });

  it("splits at question marks and Chinese connectives", () => {
    expect(splitQuestion("病假有几天？报销由谁审批？")).toEqual(["病假有几天？", "报销由谁审批？"]);
    expect(splitQuestion("病假制度是什么，报销由谁审批？")).toEqual(["病假制度是什么？", "报销由谁审批？"]);
    expect(splitQuestion("How long is the notice period? Where do I book leave?")).toEqual([
      "How long is the notice period?",
      "Where do I book leave?",
    ]);
  });

  it("keeps a single question whole, even with 'and' inside it", () => {
    expect(splitQuestion("What are the rules for sick leave and annual leave?")).toEqual([
      "What are the rules for sick leave and annual leave?",
    ]);
    expect(splitQuestion("年假有多少天？")).toEqual(["年假有多少天？"]);
    expect(splitQuestion("在什么情况下，建议采用防晒措施？")).toEqual(["在什么情况下，建议采用防晒措施？"]);
  });

  it("gives at most four parts", () => {
    const many = "Who? What is A? What is B? What is C? What is D? What is E?";
    expect(splitQuestion(many)).toEqual([many]);
  });

  it("gates the model's decomposition step to questions that may have parts", () => {
    expect(mayHaveParts("What is the sick-leave policy and who approves expenses?")).toBe(true);
    expect(mayHaveParts("How many days of annual leave do I get?")).toBe(false);
  });
});

describe("follow-ups", () => {
  it("recognises short and anaphoric follow-ups in both languages", () => {
    for (const q of ["and for part-time staff?", "What about contractors?", "who approves it?", "那兼职员工呢？"])
      expect(isFollowUp(q), q).toBe(true);
    for (const q of ["Who manages the Lisbon office?", "报销需要在多少天内提交？"]) expect(isFollowUp(q), q).toBe(false);
  });

  it("tells follow-ups without a subject of their own (ellipsis, pronouns) from those that may name a new one", () => {
    for (const q of ["and for part-time staff?", "who approves it?", "那需要提前多久申请？"]) expect(isEllipsis(q), q).toBe(true);
    for (const q of ["What about the VPN policy?", "那年假呢？"]) expect(isEllipsis(q), q).toBe(false);
  });

  it("searches a follow-up together with the previous question", () => {
    expect(followUpQuery("and for part-time staff?", "How much annual leave do I get?")).toBe(
      "and for part-time staff? How much annual leave do I get?",
    );
    expect(followUpQuery("Who manages the Lisbon office?", "How much annual leave do I get?")).toBe("Who manages the Lisbon office?");
    expect(followUpQuery("and for part-time staff?", undefined)).toBe("and for part-time staff?");
  });
});

describe("askedPart", () => {
  it("asks a message longer than a search query by its last question, and a short one whole", () => {
    const long = `${"Some background that goes on. ".repeat(200)}How many days of annual leave do I get? Thanks.`;
    expect(askedPart(long)).toBe("How many days of annual leave do I get? Thanks.");
    expect(askedPart("Some background. How many days?")).toBe("Some background. How many days?");
    expect(askedPart("很长的背景。".repeat(300)).length).toBeLessThanOrEqual(300);
  });
});
