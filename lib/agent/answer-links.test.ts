import { describe, expect, it } from "vitest";
import { CHECK_HREF, CITE_HREF, claimBefore, linkCitations, withCheckNotes } from "./answer-links";
import { checkCitations } from "./support";

describe("linkCitations", () => {
  it("turns valid markers into chip links and records the claim each supports", () => {
    const text = "Employees get 20 days of leave [1]. Sick leave needs a note [2][3]. Unknown [9].";
    const { markdown, claims } = linkCitations(text, (n) => n <= 3);
    expect(markdown).toBe(
      "Employees get 20 days of leave [1](#cite-1-0). Sick leave needs a note [2](#cite-2-1)[3](#cite-3-2). Unknown [9].",
    );
    expect(claims).toEqual(["Employees get 20 days of leave", "Sick leave needs a note", ""]);
    expect("#cite-3-2".match(CITE_HREF)?.slice(1)).toEqual(["3", "2"]);
  });

  it("finds the quoted sentence of a list item, English or Chinese", () => {
    const text =
      "From the knowledge base:\n\n- Full-time employees receive 20 days of annual leave per year. [1]\n- 员工先填写报销申请单。 [2]";
    expect(linkCitations(text, () => true).claims).toEqual([
      "Full-time employees receive 20 days of annual leave per year",
      "员工先填写报销申请单",
    ]);
  });

  it("takes the whole list item when several quoted sentences share one marker", () => {
    const text = "From the knowledge base:\n\n- Full-time employees get 20 days. Part-time employees get a pro-rated amount. [1]";
    expect(linkCitations(text, () => true).claims).toEqual(["Full-time employees get 20 days. Part-time employees get a pro-rated amount"]);
  });

  it("stops at the previous sentence", () => {
    const text = "First point. Second point, e.g. this one [4]";
    expect(claimBefore(text, text.indexOf("[4]"))).toBe("Second point, e.g. this one");
  });
});

describe("withCheckNotes", () => {
  it("puts a note after each sentence whose citation moved or that no source supports, and nowhere else", () => {
    const chunks = [
      { n: 1, text: "Full-time employees receive 20 days of annual leave per year." },
      { n: 2, text: "Annual plans can be refunded in full within 14 days of purchase." },
    ];
    const check = checkCitations(
      "- Full-time employees receive 20 days of annual leave per year. [2]\n- Annual plans can be refunded within 14 days. [2]\n- Interns work on Mars. [1]",
      chunks,
    );
    const text = withCheckNotes(check);
    expect(text).toBe(
      "- Full-time employees receive 20 days of annual leave per year. [1] [!](#check-0)\n- Annual plans can be refunded within 14 days. [2]\n- Interns work on Mars. [1] [!](#check-2)",
    );
    expect("#check-2".match(CHECK_HREF)?.[1]).toBe("2");
    // The claims the chips highlight are unchanged by the notes.
    expect(linkCitations(text, () => true).claims[0]).toBe("Full-time employees receive 20 days of annual leave per year");
  });
});
