import { describe, expect, it } from "vitest";
import { textAfter, textBefore, wholeSentences } from "./context";

describe("small-to-big context", () => {
  const doc = "First sentence here. Second one follows. The chunk starts now and ends here. Third after. Fourth after.";
  const start = doc.indexOf("The chunk");
  const end = doc.indexOf(" Third");

  it("takes whole sentences before and after the chunk", () => {
    expect(textBefore(doc, start)).toBe("First sentence here. Second one follows.");
    expect(textAfter(doc, end)).toBe("Third after. Fourth after.");
  });

  it("stays within the bound and never returns a cut sentence", () => {
    expect(textBefore(doc, start, 25)).toBe("Second one follows.");
    expect(textAfter(doc, end, 20)).toBe("Third after.");
    expect(textBefore(doc, start, 10)).toBe("");
  });

  it("cuts Chinese at 。！？", () => {
    const zh = "第一句话。第二句话！本段内容。后面一句？再后面。";
    const s = zh.indexOf("本段");
    const e = s + "本段内容。".length;
    expect(textBefore(zh, s, 8)).toBe("第二句话！");
    expect(textAfter(zh, e, 7)).toBe("后面一句？");
  });

  it("keeps one line break on the side that touches the chunk", () => {
    const lines = "A heading line\nThe chunk starts a line. It ends one.\nNext line here. More.";
    const s = lines.indexOf("The chunk");
    const e = lines.indexOf("\nNext");
    expect(textBefore(lines, s)).toBe("A heading line\n");
    expect(textAfter(lines, e)).toBe("\nNext line here. More.");
  });

  it("completes the sentences a chunk was cut inside, from its context", () => {
    const text =
      "In 1959, the activity was completed, with ABC Films selling programs. The arrival of satellite TV ended it, as governments";
    const cut = text.indexOf("ABC Films");
    const doc = `Earlier sentence. ${text} wanted more independence. Later sentence.`;
    const start = doc.indexOf("ABC Films");
    const end = doc.indexOf(" wanted");
    const whole = wholeSentences(doc.slice(start, end), textBefore(doc, start), textAfter(doc, end));
    expect(whole).toBe(`${text.slice(0, cut)}${text.slice(cut)} wanted more independence.`);
    // A chunk that starts and ends a line is left as it is: the line before is not part of its sentence.
    const lines = "Heading without a period\nThe chunk starts a line\nNext line.";
    const s = lines.indexOf("The chunk");
    const e = s + "The chunk starts a line".length;
    expect(wholeSentences(lines.slice(s, e), textBefore(lines, s), textAfter(lines, e))).toBe("The chunk starts a line");
    const zh = "第一句。年假按工龄计算，满1年不满5年的，每年10天；满5年的，每年15天。下一句。";
    const zs = zh.indexOf("满1年");
    const ze = zh.indexOf("满5年的");
    expect(wholeSentences(zh.slice(zs, ze), textBefore(zh, zs), textAfter(zh, ze))).toBe(
      // Clauses joined by ； are one sentence (lib/text/sentences): the whole tiered rule.
      "年假按工龄计算，满1年不满5年的，每年10天；满5年的，每年15天。",
    );
  });
});
