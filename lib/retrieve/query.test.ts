import { describe, expect, it } from "vitest";
import { analyzeQuery, normalizeForMatch } from "./query";

const keys = (q: string) => analyzeQuery(q).terms.map((t) => t.key);

describe("analyzeQuery", () => {
  it("drops Chinese question and function words and keeps the content words", () => {
    expect(keys("启明行动发布了什么文件？")).toEqual(["启明", "行动", "发布", "文件"]);
    expect(keys("谁是发言人？")).toEqual(["发言人"]);
    const { indexText } = analyzeQuery("启明行动发布了什么文件？");
    expect(indexText.split(" ")).toContain("发布");
    expect(indexText.split(" ")).not.toContain("什么");
    expect(indexText.split(" ")).not.toContain("了");
    // No pair straddles a dropped word.
    expect(indexText.split(" ")).not.toContain("布文");
  });

  it("drops English question words, stems like the index and keeps numbers", () => {
    const terms = analyzeQuery("How many people died during the 1918 influenza pandemic?").terms;
    expect(terms).toEqual([
      { key: "peopl", kind: "word" },
      { key: "die", kind: "word" },
      { key: "1918", kind: "number" },
      { key: "influenza", kind: "word" },
      { key: "pandem", kind: "word" },
    ]);
    expect(analyzeQuery("infections").terms[0].key).toBe(analyzeQuery("infected").terms[0].key);
  });

  it("falls back to the whole question when nothing but question words is left", () => {
    const a = analyzeQuery("什么是？");
    expect(a.terms).toEqual([]);
    expect(a.indexText).not.toBe("");
  });

  it("keeps every word when stop words are switched off (ablation)", () => {
    expect(analyzeQuery("谁是发言人？", { stopWords: false }).terms.map((t) => t.key)).toEqual(["谁", "是", "发言人"]);
  });
});

describe("normalizeForMatch", () => {
  /** What it computes, without its shortcuts. */
  const full = (t: string) =>
    t
      .normalize("NFKC")
      .toLowerCase()
      .normalize("NFD")
      .replace(/[\u0300-\u036f]/g, "")
      .normalize("NFC");

  it("folds case, width and Latin, Greek and Cyrillic diacritics, and leaves CJK and kana whole", () => {
    const samples = [
      "Plain ASCII Text, 42 Items.",
      "Crème Brûlée à la Française",
      "Ｆｕｌｌ－ｗｉｄｔｈ ＡＢＣ １２３",
      "Tiếng Việt có dấu",
      "Ἀθῆναι and Ελληνικά",
      "Йошкар-Ола, ёлка",
      "员工先填写报销申请单，然后交给财务部门。",
      "ガイドブック と がぎぐ",
      "한국어 문장",
      "e\u0301 combining mark, ﬁ ligature, Å angstrom",
      "中\u0301文 a mark after a Han character",
      "हिन्दी and שָׁלוֹם: marks that are not Latin diacritics",
    ];
    for (const t of samples) expect(normalizeForMatch(t)).toBe(full(t));
    expect(normalizeForMatch("Crème")).toBe("creme");
  });

  it("keeps a one-character stop word that starts a name the dictionary lacks", () => {
    // jieba cuts 于乐 (a footballer) into 于 / 乐; 于 alone is a function word.
    expect(analyzeQuery("于乐的职业是什么？").terms.map((t) => t.key)).toEqual(["于乐", "职业"]);
    expect(analyzeQuery("于乐的职业是什么？").indexText).toContain("于乐");
    expect(analyzeQuery("从中国到美国").terms.map((t) => t.key)).toEqual(["中国", "美国"]);
  });

  it("keeps 'May' and 'US' where the question writes them as names", () => {
    expect(analyzeQuery("What happened in May in the US?").terms.map((t) => t.key)).toEqual(["happen", "may", "us"]);
    expect(analyzeQuery("What may cause it, can you tell us?").terms.map((t) => t.key)).toEqual(["caus", "tell"]);
  });
});
