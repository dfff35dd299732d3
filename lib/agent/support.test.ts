import { describe, expect, it } from "vitest";
import { checkChanged, checkCitations, SUPPORTED, supportOf } from "./support";

const LEAVE = { n: 1, text: "Full-time employees receive 20 days of annual leave per year. Part-time staff get a pro-rata share." };
const REFUND = { n: 2, text: "Annual plans can be refunded in full within 14 days of purchase." };
const VPN = {
  n: 3,
  document: { title: "Security policy" },
  text: "Remote access requires the company VPN with two-factor authentication.",
};
const SICK = { n: 4, text: "病假需要提供二级以上医院出具的诊断证明，3天以内由部门经理审批。" };
const CHUNKS = [LEAVE, REFUND, VPN, SICK];

describe("citation check", () => {
  it("keeps a citation whose chunk says what the sentence claims", () => {
    const text = "Full-time employees receive 20 days of annual leave per year [1].";
    const check = checkCitations(text, CHUNKS);
    expect(check.text).toBe(text);
    expect(check.sentences).toHaveLength(1);
    expect(check.sentences[0].citations).toEqual([{ n: 1, support: expect.any(Number) }]);
    expect(check.sentences[0].citations[0].support).toBeGreaterThanOrEqual(SUPPORTED);
    expect(check.sentences[0].unsupported).toBeUndefined();
    expect(checkChanged(check)).toBe(false);
  });

  it("moves a wrong citation to the retrieved chunk that supports the sentence", () => {
    const text = "- Full-time employees receive 20 days of annual leave per year. [2]\n- Remote access requires the company VPN. [3]";
    const check = checkCitations(text, CHUNKS);
    expect(check.text).toBe(
      "- Full-time employees receive 20 days of annual leave per year. [1]\n- Remote access requires the company VPN. [3]",
    );
    expect(check.sentences[0].citations).toEqual([{ n: 1, support: expect.any(Number), from: 2 }]);
    expect(check.sentences[1].citations[0].from).toBeUndefined();
    expect(checkChanged(check)).toBe(true);
  });

  it("marks a sentence no retrieved chunk supports, and where the marker goes (after its citation)", () => {
    const text = "Employees may work from the Lisbon office on Fridays [3]. Remote access requires the company VPN [3].";
    const check = checkCitations(text, CHUNKS);
    expect(check.text).toBe(text);
    expect(check.sentences[0].unsupported).toBe("citation");
    expect(text.slice(0, check.sentences[0].end)).toBe("Employees may work from the Lisbon office on Fridays [3].");
    expect(check.sentences[1].unsupported).toBeUndefined();
  });

  it("flags a number or date that appears in no retrieved chunk, unless the question had it", () => {
    const text = "Full-time employees receive 25 days of annual leave per year [1].";
    const check = checkCitations(text, CHUNKS);
    expect(check.sentences[0].numbers).toEqual(["25"]);
    expect(check.sentences[0].unsupported).toBeDefined();
    expect(checkCitations("In 2031 nothing changes.", CHUNKS, "What changes in 2031?").sentences).toEqual([]);
    expect(checkCitations("In 2031 nothing changes.", CHUNKS).sentences[0]).toMatchObject({ unsupported: "number", numbers: ["2031"] });
  });

  it("reads Chinese sentences by their words", () => {
    const right = checkCitations("病假需要提供医院出具的诊断证明。[4]", CHUNKS);
    expect(right.sentences[0].citations[0]).toEqual({ n: 4, support: expect.any(Number) });
    const wrong = checkCitations("病假需要提供医院出具的诊断证明。[2]", CHUNKS);
    expect(wrong.text).toBe("病假需要提供医院出具的诊断证明。[4]");
    expect(checkCitations("年假可以折算成现金。[4]", CHUNKS).sentences[0].unsupported).toBe("citation");
  });

  it("treats the sentences of a bullet that ends in one marker as one claim (the highlighter's rule)", () => {
    const text =
      "From the knowledge base:\n\n- Full-time employees receive 20 days of annual leave per year. Part-time staff get a pro-rata share. [1]";
    const check = checkCitations(text, CHUNKS);
    expect(check.sentences).toHaveLength(1);
    expect(check.sentences[0].text).toBe(
      "Full-time employees receive 20 days of annual leave per year. Part-time staff get a pro-rata share.",
    );
    expect(check.sentences[0].end).toBe(text.length);
  });

  it("scores support as the share of the claim's content in the chunk, numbers counting double", () => {
    expect(supportOf("Annual plans can be refunded within 14 days", REFUND)).toBe(1);
    expect(supportOf("Annual plans can be refunded within 30 days", REFUND)).toBeCloseTo(5 / 7);
    expect(supportOf("Remote access requires the company VPN", LEAVE)).toBe(0);
    // The claim's words must stand together (in neighbouring sentences), not anywhere in the chunk.
    const scattered = {
      n: 5,
      text: "Proteins fold in the cytoplasm. Many cells divide daily. Membranes are thin. Sugars are made in light. The polypeptide is long. Imports are checked at the border.",
    };
    expect(supportOf("Proteins help the polypeptide get imported", scattered)).toBeLessThan(SUPPORTED);
  });
});

describe("claims about table and CSV rows (issue #43, point 12)", () => {
  // How lib/parse/csv.ts writes a CSV's rows, and the same data as a Markdown table.
  const CSV = {
    n: 5,
    document: { title: "offices" },
    heading: "Rows 1–2",
    text: "office: Berlin\nphone: +49 30 1234567\n\noffice: Shanghai\nphone: +86 21 5555 0000",
  };
  const TABLE = {
    n: 6,
    document: { title: "contacts" },
    text: "| Office | Phone |\n|---|---|\n| Berlin | +49 30 1234567 |\n| Shanghai | +86 21 5555 0000 |",
  };

  it("a claim taking its name from one row and its figure from another is not supported, as a sentence, a table cell or a bullet", () => {
    for (const [text, chunk] of [
      ["The Shanghai office's phone number is +49 30 1234567 [5].", CSV],
      ["| Office | Phone |\n|---|---|\n| Shanghai | +49 30 1234567 [6] |", TABLE],
      ["| Office | Phone |\n|---|---|\n| Shanghai | +49 30 1234567 [5] |", CSV],
      ["- Shanghai: +49 30 1234567 [6]", TABLE],
    ] as const) {
      const check = checkCitations(text, [chunk]);
      expect(check.sentences, text).toHaveLength(1);
      expect(check.sentences[0].unsupported, text).toBe("citation");
    }
  });

  it("a claim stating one row's values is supported, and a mixed one moves to the row's own chunk when it was retrieved", () => {
    for (const [text, chunk] of [
      ["The Shanghai office's phone number is +86 21 5555 0000 [5].", CSV],
      ["| Office | Phone |\n|---|---|\n| Shanghai | +86 21 5555 0000 [6] |", TABLE],
      ["- office: Shanghai · phone: +86 21 5555 0000 [5]", CSV],
    ] as const) {
      const check = checkCitations(text, [chunk]);
      expect(check.sentences[0].unsupported, text).toBeUndefined();
      expect(check.sentences[0].citations[0].support, text).toBeGreaterThanOrEqual(SUPPORTED);
    }
    const other = { n: 7, text: "Our Shanghai office can be reached at +49 30 1234567 on weekdays." };
    const moved = checkCitations("The Shanghai office's phone number is +49 30 1234567 [5].", [CSV, other]);
    expect(moved.sentences[0].citations[0]).toMatchObject({ n: 7, from: 5 });
  });
});

describe("an answer's `name: value` lines", () => {
  it("are one claim when only the last line cites, and a claim each when each line cites", () => {
    const whole = checkCitations("Office: Shanghai\nPhone: +86 21 5555 0000 [1]", [
      { n: 1, text: "office: Berlin\nphone: +49 30 1234567\n\noffice: Shanghai\nphone: +86 21 5555 0000" },
    ]);
    expect(whole.sentences.map((s) => [s.text, s.unsupported])).toEqual([["Office: Shanghai\nPhone: +86 21 5555 0000", undefined]]);
    const each = checkCitations("Annual leave: 20 days per year [1]\nRefunds: in full within 14 days of purchase [2]", CHUNKS);
    expect(each.sentences.map((s) => [s.text, s.citations.map((c) => c.n), s.unsupported])).toEqual([
      ["Annual leave: 20 days per year", [1], undefined],
      ["Refunds: in full within 14 days of purchase", [2], undefined],
    ]);
  });
});
