import { describe, expect, it } from "vitest";
import {
  CitationRegistry,
  citedNumbers,
  createCitationStreamSanitizer,
  extractRetrieved,
  type RetrievedChunk,
  sanitizeCitations,
  stripCitations,
} from "./citations";

function chunk(id: string, text = `text of ${id}`): RetrievedChunk & { ref: number } {
  return {
    ref: 0,
    chunk_id: id,
    document: { id: `d-${id}`, title: `Doc ${id}`, source: `${id}.md` },
    kb: "default",
    heading: "H",
    text,
    score: 0.5,
  };
}

describe("CitationRegistry", () => {
  it("numbers chunks across several searches so refs never collide", () => {
    const reg = new CitationRegistry();
    // Both searches come back from the tool numbered 1..k.
    const first = reg.add([
      { ...chunk("a"), ref: 1 },
      { ...chunk("b"), ref: 2 },
    ]);
    const second = reg.add([
      { ...chunk("c"), ref: 1 },
      { ...chunk("a"), ref: 2 },
      { ...chunk("d"), ref: 3 },
    ]);
    expect(first.map((c) => c.n)).toEqual([1, 2]);
    // "a" keeps the number it got in the first search; new chunks continue the sequence.
    expect(second.map((c) => [c.chunk_id, c.n])).toEqual([
      ["c", 3],
      ["a", 1],
      ["d", 4],
    ]);
    expect(reg.list().map((c) => c.chunk_id)).toEqual(["a", "b", "c", "d"]);
    expect(reg.get(3)?.chunk_id).toBe("c");
    expect(reg.has(5)).toBe(false);
    expect("ref" in reg.get(1)!).toBe(false);
  });

  it("keeps the best score of a chunk retrieved twice", () => {
    const reg = new CitationRegistry();
    reg.add([{ ...chunk("a"), score: 0.2 }]);
    reg.add([{ ...chunk("a"), score: 0.9 }]);
    expect(reg.get(1)?.score).toBe(0.9);
  });
});

describe("extractRetrieved", () => {
  const result = {
    ref: 1,
    chunk_id: "c1",
    document: { id: "d1", title: "T", source: "t.md" },
    kb: "default",
    heading: "A › B",
    text: "x",
    score: 1.5,
    page: 3,
  };

  it("reads search results with the tools' own output schema, keeping what a citation shows and its context", () => {
    const out = extractRetrieved({ results: [{ ...result, context_before: "Before.", strong: true }] });
    const { ref: _ref, ...retrieved } = result; // no ref and no strong flag
    expect(out).toEqual([{ ...retrieved, context_before: "Before." }]);
  });

  it("returns null for anything that is not a search result", () => {
    expect(extractRetrieved({ results: [result, { ref: 2, text: "no id" }] })).toBeNull();
    expect(extractRetrieved({ documents: [] })).toBeNull();
    expect(extractRetrieved(undefined)).toBeNull();
  });
});

describe("sanitizeCitations", () => {
  const valid = new Set([1, 2, 3]);
  const isValid = (n: number) => valid.has(n);

  it("keeps markers of retrieved chunks and removes dangling ones", () => {
    const r = sanitizeCitations("Leave is 20 days [1]. Sick pay is full [7]. Claims need a form [2][9].", isValid);
    expect(r.text).toBe("Leave is 20 days [1]. Sick pay is full. Claims need a form [2].");
    expect(r.cited).toEqual([1, 2]);
    expect(r.dangling).toEqual([7, 9]);
  });

  it("normalizes lists, ranges and full-width brackets", () => {
    expect(sanitizeCitations("A [1, 3]. B [1-3]. C【2】. D [2，5].", isValid).text).toBe("A [1][3]. B [1][2][3]. C[2]. D [2].");
    expect(sanitizeCitations("病假需要医院证明【2】。", isValid).text).toBe("病假需要医院证明[2]。");
  });

  it("leaves links and non-citation brackets alone", () => {
    const text = "See [1](https://example.com) and [note]: and [x] and arr[a].";
    expect(sanitizeCitations(text, () => false).text).toBe(text);
  });

  it("lists cited numbers and strips markers", () => {
    expect(citedNumbers("x [2] y [1][2] z [3, 4]")).toEqual([2, 1, 3, 4]);
    expect(stripCitations("Twenty days [1]. Full pay [2][3].")).toBe("Twenty days. Full pay.");
  });
});

describe("createCitationStreamSanitizer", () => {
  function run(deltas: string[], valid: number[]) {
    const s = createCitationStreamSanitizer((n) => valid.includes(n));
    return deltas.map((d) => s.push(d)).join("") + s.flush();
  }

  it("gives the same text as sanitizing the whole answer, however it is split", () => {
    const answer = "Employees get 20 days [1]. Unused days carry over [4]. Ask HR [2, 4].\n\n- Form first [3]";
    const whole = sanitizeCitations(answer, (n) => [1, 2, 3].includes(n)).text;
    for (const size of [1, 2, 3, 5, 8]) {
      const deltas = answer.match(new RegExp(`[\\s\\S]{1,${size}}`, "g"))!;
      expect(run(deltas, [1, 2, 3])).toBe(whole);
    }
  });

  it("holds back a marker split across deltas", () => {
    const s = createCitationStreamSanitizer((n) => n === 12);
    expect(s.push("Twenty days [")).toBe("Twenty days");
    expect(s.push("1")).toBe("");
    expect(s.push("2] and more")).toBe(" [12] and more");
    expect(s.flush()).toBe("");
  });
});
