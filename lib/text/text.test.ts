import { describe, expect, it } from "vitest";
import { CJK_CLASS, CJK_RUN_RE, CJK_WORD_CLASS, hasCjk, KANA_HANGUL_WORD_CLASS } from "./cjk";
import { endsClause, sentenceEnds, withoutFinalStop } from "./sentences";
import { fillerPattern, QUESTION_PUNCTUATION, ZH_PARTICLES, ZH_QUESTION_WORDS } from "./zh-fillers";

describe("CJK classes", () => {
  it("tell Chinese (and Japanese, Korean) from English", () => {
    // Rare Han (extension A, U+3400) counts too.
    for (const s of ["年假有几天？", "ひらがな", "한국어", "㐀"]) expect(hasCjk(s), s).toBe(true);
    for (const s of ["How many days of annual leave?", "Café, naïve – “quoted”"]) expect(hasCjk(s), s).toBe(false);
  });

  it("find the CJK runs of mixed text", () => {
    expect([..."MCP 服务器 uses 令牌 tokens".matchAll(CJK_RUN_RE)].map((m) => m[0])).toEqual(["服务器", "令牌"]);
    expect("年假 annual leave 天数".replace(CJK_RUN_RE, " ").trim()).toBe("annual leave");
  });

  it("keep the marks ー々〆 in a word only in the word class", () => {
    const word = new RegExp(`^[${CJK_WORD_CLASS}]+$`, "u");
    const plain = new RegExp(`^[${CJK_CLASS}]+$`, "u");
    expect(word.test("コーヒー")).toBe(true);
    expect(plain.test("コーヒー")).toBe(false);
    const kana = new RegExp(`^[${KANA_HANGUL_WORD_CLASS}]`, "u");
    expect(kana.test("コーヒー")).toBe(true);
    expect(kana.test("中文")).toBe(false);
  });
});

describe("the sentence splitter", () => {
  const split = (text: string) => {
    const bounds = [0, ...sentenceEnds(text)];
    return bounds.map((b, i) => text.slice(b, bounds[i + 1]).trim()).filter(Boolean);
  };

  it("ends English sentences before the next one starts, closing quotes included", () => {
    expect(split("He said “go.” Then left! Did he? Yes.")).toEqual(["He said “go.”", "Then left!", "Did he?", "Yes."]);
    expect(split("It costs 3.5 dollars. 20 people came.")).toEqual(["It costs 3.5 dollars.", "20 people came."]);
  });

  it("keeps abbreviations, initials and a period before a lower-case word inside the sentence", () => {
    expect(split("Use a sandbox, e.g. the staging one. Dr. Smith of the U.S. Army and William E. Simon agreed.")).toEqual([
      "Use a sandbox, e.g. the staging one.",
      "Dr. Smith of the U.S. Army and William E. Simon agreed.",
    ]);
    expect(split("See fig. 3 and version 1.2. then stop")).toEqual(["See fig. 3 and version 1.2. then stop"]);
  });

  it("ends Chinese sentences at 。！？ with or without a space, and keeps clauses joined by ；", () => {
    expect(split("他说：「走吧。」然后离开了！真的？是的。")).toEqual(["他说：「走吧。」", "然后离开了！", "真的？", "是的。"]);
    expect(split("满 1 年的，每年 10 天；满 5 年的，每年 15 天。病假需要证明。")).toEqual([
      "满 1 年的，每年 10 天；满 5 年的，每年 15 天。",
      "病假需要证明。",
    ]);
  });

  it("ends a sentence at every line break, and mixed text where each language says", () => {
    expect(split("Annual leave\n年假为 20 天。Sick leave needs a note.\nend")).toEqual([
      "Annual leave",
      "年假为 20 天。",
      "Sick leave needs a note.",
      "end",
    ]);
  });

  it("says where a clause ends, and strips a final stop", () => {
    for (const s of ["as follows:", "如下：", "done.", "完成。」", "first; "]) expect(endsClause(s.trim()), s).toBe(true);
    for (const s of ["and then", "U.S", "一二三"]) expect(endsClause(s), s).toBe(false);
    expect(withoutFinalStop("Twenty days.")).toBe("Twenty days");
    expect(withoutFinalStop("二十天。")).toBe("二十天");
  });
});

describe("Chinese question fillers", () => {
  const re = fillerPattern([...ZH_QUESTION_WORDS, ...ZH_PARTICLES], QUESTION_PUNCTUATION);
  const content = (q: string) => q.replace(re, " ").split(/\s+/).filter(Boolean);
  it("leave the content of a question, whatever its wording", () => {
    expect(content("如何重置令牌？")).toEqual(["重置令牌"]);
    expect(content("令牌怎么重置呢")).toEqual(["令牌", "重置"]);
    // The longest word first: 怎么样 is removed whole, not as 怎么 + 样.
    expect(content("年假怎么样？")).toEqual(["年假"]);
  });
  it("leave English alone", () => {
    expect("How do I reset a token?".replace(re, " ")).toBe("How do I reset a token ");
  });
});
