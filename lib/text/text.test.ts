import { describe, expect, it } from "vitest";
import { CJK_CLASS, CJK_RUN_RE, CJK_WORD_CLASS, hasCjk, KANA_HANGUL_WORD_CLASS } from "./cjk";
import { ABBREVIATIONS, CJK_STOPS, CLOSERS, ENDS_WITH_ABBREVIATION, LATIN_STOPS, SENTENCE_STOPS } from "./sentences";
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

describe("sentence ends", () => {
  const ends = new RegExp(`[${SENTENCE_STOPS}][${CLOSERS}]*`, "gu");
  it("end English and Chinese sentences, closing quotes included", () => {
    expect("He said “go.” Then left!".match(ends)).toEqual([".”", "!"]);
    expect("他说：「走吧。」然后离开了！真的？".match(ends)).toEqual(["。」", "！", "？"]);
    expect(new RegExp(`[${CJK_STOPS}]`).test(".")).toBe(false);
    expect(new RegExp(`[${LATIN_STOPS}]`).test("。")).toBe(false);
  });

  it("know the common abbreviations", () => {
    expect(ABBREVIATIONS.has("e.g")).toBe(true);
    expect(ENDS_WITH_ABBREVIATION.test("as Dr")).toBe(true);
    expect(ENDS_WITH_ABBREVIATION.test("the U.S")).toBe(true);
    expect(ENDS_WITH_ABBREVIATION.test("a sandbox")).toBe(false);
    expect(ENDS_WITH_ABBREVIATION.test("the end")).toBe(false);
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
