import { describe, expect, it } from "vitest";
import { stem, tokenize } from "./index";
import { indexStem, indexTokens, toIndexText } from "./index-text";

describe("tokenize", () => {
  it("splits Chinese without spaces into character unigrams and bigrams", () => {
    const tokens = tokenize("员工先填写报销申请单");
    expect(tokens).toContain("报销");
    expect(tokens).toContain("申请");
    expect(tokens).toContain("报");
    expect(tokens.filter((t) => t.length === 1)).toHaveLength(10);
    expect(tokens.filter((t) => t.length === 2)).toHaveLength(9);
    // Every query token of 报销 is found in the sentence, so keyword search can match it.
    for (const t of tokenize("报销")) expect(tokens).toContain(t);
  });

  it("does not pair characters across punctuation or Latin words", () => {
    const tokens = tokenize("年假，病假");
    expect(tokens).toContain("年假");
    expect(tokens).toContain("病假");
    expect(tokens).not.toContain("假病");
    expect(tokenize("用VPN连接")).toEqual(["用", "vpn", "连", "连接", "接"]);
  });

  it("handles mixed Chinese and English", () => {
    expect(tokenize("使用 Nimbus Notes 同步笔记")).toEqual([
      "使",
      "使用",
      "用",
      "nimbus",
      "not",
      "同",
      "同步",
      "步",
      "步笔",
      "笔",
      "笔记",
      "记",
    ]);
  });

  it("treats kana and hangul as CJK runs", () => {
    expect(tokenize("カタカナ")).toContain("カタ");
    expect(tokenize("휴가 신청")).toEqual(["휴", "휴가", "가", "신", "신청", "청"]);
  });

  it("lowercases and stems English lightly", () => {
    expect(tokenize("Policies")).toEqual(["policy"]);
    expect(tokenize("leaves leave leaving")).toEqual(["leav", "leav", "leav"]);
    expect(tokenize("approved approve")).toEqual(["approv", "approv"]);
    expect(tokenize("submitted submitting submits")).toEqual(["submit", "submit", "submit"]);
    expect(tokenize("expenses expense")).toEqual(["expens", "expens"]);
    expect(tokenize("processes process")).toEqual(["process", "process"]);
    expect(tokenize("days day")).toEqual(["day", "day"]);
    expect(tokenize("working called")).toEqual(["work", "call"]);
  });

  it("leaves short words and words with digits alone", () => {
    expect(stem("bus")).toBe("bus");
    expect(stem("status")).toBe("status");
    expect(stem("sing")).toBe("sing");
    expect(stem("thing")).toBe("thing");
    expect(tokenize("AES256 TLS")).toEqual(["aes256", "tls"]);
  });

  it("drops English stop words", () => {
    expect(tokenize("How many days of the annual leave do I have?")).toEqual(["many", "day", "annual", "leav"]);
    expect(tokenize("the of and")).toEqual([]);
  });

  it("keeps numbers as tokens", () => {
    expect(tokenize("Pro costs 8 dollars, 2 GB, since 2024")).toEqual(["pro", "cost", "8", "dollar", "2", "gb", "sinc", "2024"]);
    expect(tokenize("每年 12 天带薪病假")).toEqual([
      "每",
      "每年",
      "年",
      "12",
      "天",
      "天带",
      "带",
      "带薪",
      "薪",
      "薪病",
      "病",
      "病假",
      "假",
    ]);
  });

  it("normalises full-width characters and punctuation", () => {
    expect(tokenize("ＶＰＮ１２３")).toEqual(["vpn123"]);
    expect(tokenize("报销（发票）！")).toEqual(["报", "报销", "销", "发", "发票", "票"]);
    expect(tokenize("「请假」：３天")).toEqual(["请", "请假", "假", "3", "天"]);
  });

  it("folds Latin diacritics", () => {
    expect(tokenize("Résumé")).toEqual(tokenize("resume"));
  });

  it("returns nothing for punctuation and whitespace", () => {
    expect(tokenize("  —— ！？ ... \n")).toEqual([]);
    expect(tokenize("")).toEqual([]);
  });
});

describe("toIndexText", () => {
  it("joins index tokens with single spaces so a whitespace tokenizer sees the same tokens", () => {
    const text = "员工先填写报销申请单。Sick leave needs a doctor's note!";
    expect(toIndexText(text).split(" ")).toEqual(indexTokens(text));
    expect(toIndexText(text)).not.toMatch(/\s{2}|^\s|\s$/);
  });

  it("adds the dictionary words of Chinese runs to the characters and pairs", () => {
    const tokens = indexTokens("国务院新闻办公室发布报销申请单");
    for (const t of tokenize("国务院新闻办公室发布报销申请单")) expect(tokens).toContain(t);
    expect(tokens).toContain("国务院新闻办公室");
    expect(tokens).toContain("申请单");
    // A two-character word is counted twice (pair + word), a straddling pair once.
    expect(tokens.filter((t) => t === "发布")).toHaveLength(2);
    expect(tokens.filter((t) => t === "布报")).toHaveLength(1);
  });

  it("stems English with Porter2 on the index side, the same for query and text", () => {
    expect(indexStem("infections")).toBe(indexStem("infected"));
    expect(indexStem("prevention")).toBe(indexStem("prevent"));
    expect(toIndexText("COVID-19 smokers in 2020")).toBe("covid 19 smoker 2020");
  });
});
