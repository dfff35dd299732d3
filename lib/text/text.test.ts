import { describe, expect, it } from "vitest";
import { CJK_CLASS, CJK_RUN_RE, CJK_WORD_CLASS, hasCjk, KANA_HANGUL_WORD_CLASS } from "./cjk";
import { endsClause, sentenceRanges, withoutFinalStop } from "./sentences";
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
  const split = (text: string) =>
    sentenceRanges(text)
      .map(([s, e]) => text.slice(s, e).trim())
      .filter(Boolean);
  /** What it is about, the text, its sentences. */
  const cases: [string, string, string[]][] = [
    [
      "English: a sentence ends before the next one starts, closing quotes included",
      "He said “go.” Then left! Did he? Yes. It costs 3.5 dollars. 20 people came.",
      ["He said “go.”", "Then left!", "Did he?", "Yes.", "It costs 3.5 dollars.", "20 people came."],
    ],
    [
      "English: abbreviations and initials stay inside the sentence",
      "Use a sandbox, e.g. the staging one. Dr. Smith of the U.S. Army and William E. Simon agreed.",
      ["Use a sandbox, e.g. the staging one.", "Dr. Smith of the U.S. Army and William E. Simon agreed."],
    ],
    [
      "English: a period before a lower-case word does not end one",
      "See fig. 3 and version 1.2. then stop",
      ["See fig. 3 and version 1.2. then stop"],
    ],
    [
      "Chinese: 。！？ end a sentence with or without a space, closing quotes included",
      "他说：「走吧。」然后离开了！真的？是的。",
      ["他说：「走吧。」", "然后离开了！", "真的？", "是的。"],
    ],
    [
      "Chinese: clauses joined by ； stay one sentence",
      "满 1 年的，每年 10 天；满 5 年的，每年 15 天。病假需要证明。",
      ["满 1 年的，每年 10 天；满 5 年的，每年 15 天。", "病假需要证明。"],
    ],
    [
      "mixed text: each language's rule, and every line break ends a sentence",
      "Annual leave\n年假为 20 天。Sick leave needs a note.\nend",
      ["Annual leave", "年假为 20 天。", "Sick leave needs a note.", "end"],
    ],
  ];
  it.each(cases)("%s", (_, text, sentences) => expect(split(text)).toEqual(sentences));

  it("says where a clause ends, and strips a final stop", () => {
    for (const s of ["as follows:", "如下：", "done.", "完成。」", "first;"]) expect(endsClause(s), s).toBe(true);
    for (const s of ["and then", "U.S", "一二三"]) expect(endsClause(s), s).toBe(false);
    expect([withoutFinalStop("Twenty days."), withoutFinalStop("二十天。")]).toEqual(["Twenty days", "二十天"]);
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
