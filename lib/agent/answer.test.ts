import { describe, expect, it } from "vitest";
import { ANSWER_TUNING, evidence, readPassages } from "./answer";
import { answerPart } from "./answer-quotes";
import { questionTerms } from "./answer-terms";
import { answerType } from "./answer-type";
import { splitSentences } from "./extractive";

const p = (n: number, context: string, text: string) => ({ n, context, text });

/** The answer part for `question` from `passages`; fails the test when it refuses. */
function answered(question: string, passages: Parameters<typeof answerPart>[1]) {
  const a = answerPart(questionTerms(question), passages);
  if (a.kind === "none") throw new Error("refused");
  return a;
}

describe("splitSentences", () => {
  it("does not end a sentence at initials, abbreviations or semicolons", () => {
    const text = "Nixon named William E. Simon as the first administrator. The U.S. Army helped; the navy did not. Dr. Lee agreed.";
    expect(splitSentences(text).map((s) => s.text)).toEqual([
      "Nixon named William E. Simon as the first administrator.",
      "The U.S. Army helped; the navy did not.",
      "Dr. Lee agreed.",
    ]);
    expect(splitSentences("满 1 年的，每年 10 天；满 5 年的，每年 15 天。逾期作废。").map((s) => s.text)).toEqual([
      "满 1 年的，每年 10 天；满 5 年的，每年 15 天。",
      "逾期作废。",
    ]);
  });
});

describe("questionTerms", () => {
  it("drops question words and joins characters jieba leaves unsegmented", () => {
    expect(questionTerms("How many days of annual leave do employees get?").map((t) => t.key)).toEqual([
      "day",
      "annual",
      "leav",
      "employe",
    ]);
    expect(questionTerms("年假有多少天？").map((t) => t.key)).toEqual(["年假", "天"]);
  });
});

describe("answerPart", () => {
  const handbook = p(
    1,
    "Handbook › Leave",
    "Full-time employees receive 20 days of paid annual leave per year. Part-time employees receive a pro-rated amount. Book leave in the HR portal.",
  );

  it("quotes whole sentences with their chunk number, the best first", () => {
    const a = answerPart(questionTerms("How many days of annual leave do full-time employees get?"), [handbook]);
    expect(a.kind).toBe("sentences");
    if (a.kind === "none") return;
    expect(a.quotes[0]).toEqual({
      n: 1,
      text: expect.stringContaining("Full-time employees receive 20 days of paid annual leave per year."),
    });
  });

  it("does not quote the same sentence twice from near-duplicate chunks", () => {
    const copy = { ...handbook, n: 2 };
    const a = answered("How many days of annual leave do full-time employees get?", [handbook, copy]);
    const all = a.quotes.map((q) => q.text).join(" ");
    expect(all.match(/Full-time employees receive/g)).toHaveLength(1);
  });

  it("does not start a quote in the middle of a sentence", () => {
    const cut = p(
      1,
      "Biology › Plastids",
      "back into the chloroplast stroma. Chloroplasts make sugar from light in the stroma. They also store starch.",
    );
    const a = answered("Where do chloroplasts make sugar?", [cut]);
    expect(a.quotes[0].text).toMatch(/^Chloroplasts make sugar/);
  });

  it("answers with the closest passage when the chunk matches but no sentence stands out", () => {
    const spread = p(
      1,
      "Offices",
      "The Lisbon office opened in 2019. It is managed from the head office by Ana Costa, who also runs Porto.",
    );
    const a = answerPart(questionTerms("Who manages the Lisbon office?"), [spread]);
    expect(a.kind).not.toBe("none");
    if (a.kind === "none") return;
    expect(a.quotes.map((q) => q.text).join(" ")).toContain("Ana Costa");
  });

  it("does not refuse a Chinese question whose answer the chunk holds in other words", () => {
    const game = p(1, "游戏介绍 › 战国史", "《战国史》是一款策略游戏。游戏主打两种玩法：剧本模式和自由模式。玩家可以选择七国之一。");
    const a = answerPart(questionTerms("战国史模式主打哪两个模式？"), [game]);
    expect(a.kind).not.toBe("none");
    if (a.kind === "none") return;
    expect(a.quotes.map((q) => q.text).join("")).toContain("剧本模式和自由模式");
  });

  it("refuses when retrieval found nothing about the question", () => {
    expect(answerPart(questionTerms("What is the boiling point of mercury?"), [handbook]).kind).toBe("none");
    expect(answerPart(questionTerms("公司的火星基地在哪里？"), [p(1, "员工手册", "员工每年享有 12 天带薪病假。")]).kind).toBe("none");
  });

  it("takes a derived form of a question's word for it when judging whether to answer (restoration, restored)", () => {
    const mill = p(
      1,
      "Town › Mill",
      "The old mill was restored between 2006 and 2008, when its wheel and roof were rebuilt. Visitors can tour it on weekends.",
    );
    const a = answered("What did the restoration of the old mill rebuild?", [mill]);
    expect(a.quotes[0].text).toContain("restored between 2006 and 2008");
  });

  it("keeps answers bounded", () => {
    const long = Array.from({ length: 30 }, (_, i) => `Annual leave rule ${i} applies to employees in region ${i}.`).join(" ");
    const a = answered("annual leave rule for employees", [p(1, "Rules", long)]);
    expect(a.quotes.map((q) => q.text).join(" ").length).toBeLessThanOrEqual(ANSWER_TUNING.maxChars + 50);
  });
});

describe("sentence ranking", () => {
  const q = "When did the Porto warehouse start shipping orders?";
  const passages = [
    p(
      1,
      "Logistics",
      "The Porto warehouse is our newest site. It started shipping orders in 2019 after a long review. Staff were hired locally.",
    ),
    p(2, "Logistics", "The Lyon warehouse started shipping orders in 2015."),
  ];
  const expected = { type: answerType(q)!, question: q };

  it("prefers the sentence that sits among the question's other words over a passing match elsewhere", () => {
    const best = readPassages(questionTerms(q), passages, ANSWER_TUNING, expected).candidates[0];
    expect(best.span.text).toBe("It started shipping orders in 2019 after a long review.");
    // Without the weight of the words around it, the other warehouse's sentence wins.
    const plain = readPassages(questionTerms(q), passages, { ...ANSWER_TUNING, localWeight: 0 }, expected).candidates[0];
    expect(plain.span.text).toBe("The Lyon warehouse started shipping orders in 2015.");
  });
});

describe("refusal evidence", () => {
  const q = "When did the Oslo team move to the new harbour office building?";
  const expected = { type: answerType(q)!, question: q };
  const about = (text: string) => [p(1, "Company › Teams", text)];

  it("asks more of a passage that lacks the kind of answer the question asks for", () => {
    // The same words of the question; only the year differs.
    expect(answerPart(questionTerms(q), about("The Oslo team works by the harbour."), ANSWER_TUNING, expected).kind).toBe("none");
    expect(answerPart(questionTerms(q), about("The Oslo team works by the harbour since 2019."), ANSWER_TUNING, expected).kind).not.toBe(
      "none",
    );
    const without = readPassages(questionTerms(q), about("The Oslo team works by the harbour."), ANSWER_TUNING, expected);
    const withYear = readPassages(questionTerms(q), about("The Oslo team works by the harbour since 2019."), ANSWER_TUNING, expected);
    // The penalty, and the best sentence's type bonus counted in the evidence.
    expect(evidence(withYear, ANSWER_TUNING, expected) - evidence(without, ANSWER_TUNING, expected)).toBeCloseTo(
      ANSWER_TUNING.untypedPenalty + ANSWER_TUNING.evidenceScore * ANSWER_TUNING.typeBonus,
    );
  });

  it("counts a question's words: the same shares are stronger evidence for a longer question", () => {
    const passages = [p(1, "Lab › Notes", "Samples are stored in the cold room. The freezer log is checked daily.")];
    const short = readPassages(questionTerms("Where are samples stored in the cold room?"), passages);
    const long = readPassages(questionTerms("Where are samples and reagents stored in the cold room and the freezer?"), passages);
    const at = (n: number) => ANSWER_TUNING.evidenceTerms * Math.log1p(Math.min(n, ANSWER_TUNING.evidenceTermsCap));
    const bonus = (r: typeof short) => evidence(r) - evidence(r, { ...ANSWER_TUNING, evidenceTerms: 0 });
    expect(bonus(short)).toBeCloseTo(at(short.terms.length));
    expect(bonus(long)).toBeGreaterThan(bonus(short));
    // Capped: a 5,000-character question gets no more than a question of evidenceTermsCap words.
    const huge = readPassages(questionTerms(Array.from({ length: 60 }, (_, i) => `samples${i}`).join(" ")), passages);
    expect(bonus(huge)).toBeCloseTo(at(ANSWER_TUNING.evidenceTermsCap));
  });

  it("asks more of a question of very few words", () => {
    const passages = [p(1, "Lab › Notes", "Samples are stored in the cold room. The freezer log is checked daily.")];
    const few = readPassages(questionTerms("Where are samples stored?"), passages);
    const withoutPenalty = evidence(few, { ...ANSWER_TUNING, fewTermsPenalty: 0 });
    expect(evidence(few)).toBeCloseTo(withoutPenalty - ANSWER_TUNING.fewTermsPenalty);
  });
});
