import { describe, expect, it } from "vitest";
import { STOP_WORDS } from "@/lib/tokenize";
import { indexStem } from "@/lib/tokenize/index-text";
import { analyzeQuery, normalizeForMatch } from "./query";
import { DEFAULT_RERANK_WEIGHTS, latinPositions, lexicalRerank, type RerankView } from "./rerank";

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
    const withDocument = { ...DEFAULT_RERANK_WEIGHTS, document: 0.5 };
    const out = lexicalRerank(analyzeQuery("influenza vaccine trial").terms, views, (v) => v, withDocument);
    expect(out[0].item.documentId).toBe("rich");
    expect(out[0].features.document).toBe(1);
  });

  it("gathers a document's evidence from its best documentDepth candidates only", () => {
    // A long document whose sections each hold one generic word of the question.
    const views = [
      { documentId: "short", text: "start date of the current planning period", fields: "", score: 1 },
      { documentId: "long", text: "transfer start", fields: "", score: 0.9 },
      { documentId: "long", text: "current role", fields: "", score: 0.8 },
      { documentId: "long", text: "interim period", fields: "", score: 0.7 },
      { documentId: "long", text: "review date", fields: "", score: 0.6 },
    ];
    const terms = analyzeQuery("start date current planning period").terms;
    const doc = (depth: number) =>
      lexicalRerank(terms, views, (v) => v, { ...DEFAULT_RERANK_WEIGHTS, document: 0.5, documentDepth: depth }).find(
        (r) => r.item.documentId === "long",
      )!.features.document;
    expect(doc(2)).toBeLessThan(doc(Number.POSITIVE_INFINITY));
    expect(doc(1)).toBeLessThan(doc(2));
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

  it("finds the words stemming to each term exactly as a scan of every word would", () => {
    const WORD_RE = /(?:(?![\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}])[\p{L}\p{N}\p{M}])+/gu;
    const scan = (norm: string, keys: Set<string>) => {
      const out = new Map<string, number[]>();
      for (const m of norm.matchAll(WORD_RE)) {
        if (STOP_WORDS.has(m[0])) continue;
        const key = /^\p{N}+$/u.test(m[0]) ? m[0] : indexStem(m[0]);
        if (keys.has(key)) out.set(key, [...(out.get(key) ?? []), m.index]);
      }
      return out;
    };
    const words = [
      "running",
      "runs",
      "runner",
      "us",
      "use",
      "used",
      "may",
      "café",
      "cafés",
      "2024",
      "20245",
      "病假",
      "x",
      "re-run",
      "Über",
    ];
    let seed = 7;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let run = 0; run < 200; run++) {
      const text = normalizeForMatch(
        Array.from({ length: 40 }, () => words[Math.floor(rand() * words.length)] + (rand() < 0.3 ? "病" : " ")).join(""),
      );
      const { terms } = analyzeQuery("running use cafés 2024 may über us");
      const got = latinPositions(text, terms);
      const want = scan(text, new Set(terms.map((t) => t.key)));
      for (const t of terms) expect(got.get(t.key) ?? null, `${t.key} in ${text}`).toEqual(want.get(t.key) ?? null);
    }
  });
});
