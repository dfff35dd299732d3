import { describe, expect, it } from "vitest";
import { contentUnits, recordText, splitSentences, supportingSpan } from "./extractive";

const handbook = [
  "Full-time employees receive 20 days of annual leave per year.",
  "Up to 5 unused days carry over to the next year, e.g. for a long trip.",
  "Leave requests go to your manager at least two weeks ahead.",
].join(" ");
const zh = "员工先填写报销申请单，附上发票原件。部门经理审批后交财务部。报销需在费用发生后30天内提交！";

describe("splitSentences", () => {
  it("splits English and Chinese sentences with offsets into the text", () => {
    const text = `## Leave\n\n${handbook}\n- ${zh}`;
    const spans = splitSentences(text);
    expect(spans.map((s) => s.text)).toEqual([
      "Full-time employees receive 20 days of annual leave per year.",
      "Up to 5 unused days carry over to the next year, e.g. for a long trip.",
      "Leave requests go to your manager at least two weeks ahead.",
      "员工先填写报销申请单，附上发票原件。",
      "部门经理审批后交财务部。",
      "报销需在费用发生后30天内提交！",
    ]);
    for (const s of spans) expect(text.slice(s.start, s.end)).toBe(s.text);
  });
});

describe("contentUnits", () => {
  it("drops question words in both languages", () => {
    expect(contentUnits("How many days of annual leave do employees get?", { question: true }).words).toEqual([
      "day",
      "annual",
      "leav",
      "employe",
    ]);
    expect(contentUnits("病假需要什么证明？", { question: true }).cjkRuns).toEqual(["病假", "证明"]);
  });
});

describe("supportingSpan", () => {
  it("finds a verbatim quote", () => {
    const span = supportingSpan(handbook, "Leave requests go to your manager at least two weeks ahead.")!;
    expect(handbook.slice(span.start, span.end)).toBe("Leave requests go to your manager at least two weeks ahead.");
  });

  it("highlights every sentence of a quote of several sentences", () => {
    const span = supportingSpan(
      handbook,
      "Full-time employees receive 20 days of annual leave per year. Up to 5 unused days carry over to the next year, e.g. for a long trip",
    )!;
    expect(handbook.slice(span.start, span.end)).toBe(
      "Full-time employees receive 20 days of annual leave per year. Up to 5 unused days carry over to the next year, e.g. for a long trip.",
    );
  });

  it("finds the best matching sentence for a paraphrase", () => {
    const span = supportingSpan(handbook, "You can carry over up to five unused days")!;
    expect(handbook.slice(span.start, span.end)).toMatch(/^Up to 5 unused days carry over/);
    const zhSpan = supportingSpan(zh, "员工要先填写报销申请单")!;
    expect(zh.slice(zhSpan.start, zhSpan.end)).toBe("员工先填写报销申请单，附上发票原件。");
  });

  it("returns null when nothing matches", () => {
    expect(supportingSpan(handbook, "Mercury boils at 357 degrees")).toBeNull();
  });
});

describe("records (issue #43, point 10)", () => {
  it("a CSV row's fields are one span, and a table row is one span with its header", () => {
    const text =
      "## Rows 1–2\n\noffice: Berlin\nphone: +49 30 1234567\n\noffice: Shanghai\nphone: +86 21 5555 0000\n\n| Office | Phone |\n|---|---|\n| Paris | +33 1 2345 6789 |";
    const spans = splitSentences(text);
    expect(spans.map((s) => [s.text, s.record])).toEqual([
      ["office: Berlin\nphone: +49 30 1234567", "fields"],
      ["office: Shanghai\nphone: +86 21 5555 0000", "fields"],
      ["| Office | Phone |", "header"],
      ["| Paris | +33 1 2345 6789 |", "row"],
    ]);
    for (const s of spans) expect(text.slice(s.start, s.end)).toBe(s.text);
    expect(spans.map(recordText)).toEqual([
      "office: Berlin · phone: +49 30 1234567",
      "office: Shanghai · phone: +86 21 5555 0000",
      "Office · Phone",
      "Office: Paris · Phone: +33 1 2345 6789",
    ]);
  });

  it("one `name: value` line in prose stays a sentence", () => {
    expect(splitSentences("Note: leave requests go to your manager. They answer within a week.").map((s) => s.record)).toEqual([
      undefined,
      undefined,
    ]);
  });
});
