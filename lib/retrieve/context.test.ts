import { describe, expect, it } from "vitest";
import { textAfter, textBefore } from "./context";

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
});
