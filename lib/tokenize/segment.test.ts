import { describe, expect, it } from "vitest";
import { segmentWords } from "./segment";

describe("segmentWords", () => {
  it("cuts Chinese into dictionary words and keeps numbers and Latin runs whole", () => {
    expect(segmentWords("病假需要什么证明")).toEqual(["病假", "需要", "什么", "证明"]);
    const words = segmentWords("战国史模式主打哪两个模式？COVID-19 在2023年");
    expect(words).toContain("模式");
    expect(words).toContain("主打");
    expect(words).toContain("2023");
    expect(words).toContain("COVID");
    expect(words.every((w) => w.trim() === w && w.length > 0)).toBe(true);
  });
});
