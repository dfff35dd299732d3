import { describe, expect, it } from "vitest";
import { collapseNearDuplicates, overlapRatio } from "./dedupe";
import { RRF_K, reciprocalRankFusion } from "./fusion";

const id = (s: string) => s;

describe("reciprocalRankFusion", () => {
  it("sums weight / (k + rank) over the lists that hold an item", () => {
    const fused = reciprocalRankFusion([{ items: ["a", "b", "c"] }, { items: ["c", "a"] }], id);
    const score = Object.fromEntries(fused.map((f) => [f.item, f.score]));
    expect(score.a).toBeCloseTo(1 / (RRF_K + 1) + 1 / (RRF_K + 2));
    expect(score.c).toBeCloseTo(1 / (RRF_K + 3) + 1 / (RRF_K + 1));
    expect(score.b).toBeCloseTo(1 / (RRF_K + 2));
    expect(fused.map((f) => f.item)).toEqual(["a", "c", "b"]);
    expect(fused[0].ranks).toEqual([1, 2]);
    expect(fused[2].ranks).toEqual([2, null]);
  });

  it("an item found by both retrievers beats one found first by only one", () => {
    const fused = reciprocalRankFusion([{ items: ["x", "both"] }, { items: ["y", "both"] }], id);
    expect(fused[0].item).toBe("both");
  });

  it("applies weights and k", () => {
    const fused = reciprocalRankFusion(
      [
        { items: ["a"], weight: 1 },
        { items: ["b"], weight: 2 },
      ],
      id,
      10,
    );
    expect(fused.map((f) => f.item)).toEqual(["b", "a"]);
    expect(fused[0].score).toBeCloseTo(2 / 11);
  });

  it("breaks ties by best rank, then by first appearance, and counts a repeated item once", () => {
    const fused = reciprocalRankFusion([{ items: ["a", "b", "a"] }, { items: ["b", "a"] }], id);
    expect(fused.map((f) => f.item)).toEqual(["a", "b"]);
    expect(fused[0].score).toBeCloseTo(fused[1].score);
    expect(reciprocalRankFusion([], id)).toEqual([]);
    expect(reciprocalRankFusion([{ items: [] }, { items: ["z"] }], id).map((f) => f.item)).toEqual(["z"]);
  });

  it("keys items with the given function", () => {
    const fused = reciprocalRankFusion([{ items: [{ id: "1", n: 1 }] }, { items: [{ id: "1", n: 2 }] }], (o) => o.id);
    expect(fused).toHaveLength(1);
    expect(fused[0].item.n).toBe(1);
  });
});

describe("collapseNearDuplicates", () => {
  const span = (documentId: string, start: number, end: number, text = `${documentId}-${start}`) => ({ documentId, start, end, text });

  it("drops identical text (whitespace-insensitive), keeping the first", () => {
    const items = [span("d1", 0, 10, "same  text\n"), span("d2", 0, 10, "same text"), span("d3", 0, 10, "other")];
    expect(collapseNearDuplicates(items, (s) => s).map((s) => s.documentId)).toEqual(["d1", "d3"]);
  });

  it("drops a chunk of the same document covering half of the shorter one, keeps ordinary neighbours", () => {
    const items = [span("d", 0, 500), span("d", 440, 940), span("d", 100, 560), span("e", 100, 560)];
    // 440..940 overlaps 0..500 by 60/500: a neighbour. 100..560 overlaps 0..500 by 400/460: a duplicate.
    expect(collapseNearDuplicates(items, (s) => s).map((s) => `${s.documentId}:${s.start}`)).toEqual(["d:0", "d:440", "e:100"]);
  });

  it("stops once it kept the number asked for", () => {
    const items = [span("d", 0, 500), span("d", 100, 560), span("e", 0, 100), span("f", 0, 100)];
    expect(collapseNearDuplicates(items, (s) => s, 2).map((s) => `${s.documentId}:${s.start}`)).toEqual(["d:0", "e:0"]);
    expect(collapseNearDuplicates(items, (s) => s, 10)).toHaveLength(3);
  });

  it("overlapRatio is relative to the shorter range", () => {
    expect(overlapRatio({ start: 0, end: 100 }, { start: 50, end: 60 })).toBe(1);
    expect(overlapRatio({ start: 0, end: 100 }, { start: 100, end: 200 })).toBe(0);
    expect(overlapRatio({ start: 0, end: 100 }, { start: 75, end: 175 })).toBe(0.25);
  });
});
