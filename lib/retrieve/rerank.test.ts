import { describe, expect, it } from "vitest";
import { analyzeQuery } from "./query";
import { DEFAULT_RERANK_WEIGHTS, lexicalRerank, type RerankView } from "./rerank";

const rank = (q: string, views: (Partial<RerankView> & { text: string })[], w = DEFAULT_RERANK_WEIGHTS) =>
  lexicalRerank(
    analyzeQuery(q).terms,
    views.map((v, i) => ({ documentId: `d${i}`, fields: "", score: 1, ...v })),
    (v) => v,
    w,
  ).map((r) => r.item.text);

describe("lexicalRerank", () => {
  it("prefers the candidate holding more of the rarer query terms", () => {
    const out = rank("sick leave doctor note", [
      { text: "sick leave rules" },
      { text: "a doctor's note for sick leave" },
      { text: "leave" },
    ]);
    expect(out[0]).toBe("a doctor's note for sick leave");
  });

  it("rewards query terms that stand close together", () => {
    const far = `annual reports are due. ${"x ".repeat(60)}leave is granted`;
    const out = rank("annual leave", [{ text: far }, { text: "annual leave is 20 days" }]);
    expect(out[0]).toBe("annual leave is 20 days");
  });

  it("matches the title and heading path as a field, and numbers exactly", () => {
    const byField = lexicalRerank(
      analyzeQuery("expense policy").terms,
      [
        { documentId: "a", text: "expense rules", fields: "", score: 1 },
        { documentId: "b", text: "expense rules", fields: "Policy handbook", score: 1 },
      ],
      (v) => v,
    );
    expect(byField[0].item.documentId).toBe("b");
    expect(rank("2019 budget", [{ text: "budget of 2018" }, { text: "budget of 2019" }])[0]).toBe("budget of 2019");
  });

  it("lets a document's other candidates vouch for it (document evidence)", () => {
    const views = [
      { documentId: "lonely", text: "vaccine trial results", fields: "", score: 1 },
      { documentId: "rich", text: "vaccine trial results", fields: "", score: 1 },
      { documentId: "rich", text: "influenza season", fields: "", score: 0.5 },
    ];
    const out = lexicalRerank(analyzeQuery("influenza vaccine trial").terms, views, (v) => v);
    expect(out[0].item.documentId).toBe("rich");
    expect(out[0].features.document).toBe(1);
  });

  it("matches Chinese words as substrings and ignores question words", () => {
    expect(rank("病假需要什么证明？", [{ text: "年假需要提前申请" }, { text: "病假超过三天需要医生证明" }])[0]).toBe(
      "病假超过三天需要医生证明",
    );
  });

  it("keeps the first-stage order when nothing tells the candidates apart", () => {
    expect(
      rank("zebra", [
        { text: "a", score: 2 },
        { text: "b", score: 1 },
      ]),
    ).toEqual(["a", "b"]);
  });
});
