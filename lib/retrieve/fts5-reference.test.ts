import { describe, expect, it } from "vitest";
import { cjkBigrams, fts5Query, openFts5Reference } from "./fts5-reference";

describe("SQLite FTS5 reference", () => {
  it("writes Han runs as overlapping pairs and quotes every query token", () => {
    expect(cjkBigrams("病假超过三天").trim()).toBe("病假 假超 超过 过三 三天");
    expect(cjkBigrams("a 字 b").replace(/\s+/g, " ")).toBe("a 字 b");
    expect(fts5Query('What "is" NEAR(x)?')).toBe('"what" OR "is" OR "near" OR "x"');
    expect(fts5Query("?!")).toBe("");
  });

  it("ranks by BM25 with Porter stems, Chinese pairs and the title weighted", () => {
    const fts = openFts5Reference();
    try {
      fts.add([
        { id: "a", doc: "a.md", title: "Birds", text: "Penguins are running on the ice." },
        { id: "b", doc: "b.md", title: "Leave", text: "Employees get sick leave. 员工每年有12天带薪病假。" },
        { id: "c", doc: "c.md", title: "Penguin colonies", text: "Colonies breed in winter." },
        { id: "d", doc: "d.md", title: "Misc", text: "Nothing relevant here at all, only filler words." },
      ]);
      expect(fts.search("penguin runs", 10)[0].id).toBe("a");
      expect(fts.search("带薪病假有几天", 10)[0]).toMatchObject({ id: "b", doc: "b.md" });
      expect(fts.search("带薪病假有几天", 10)[0].text).toContain("员工每年");
      // The title counts double: the title match beats the body match of the same word.
      expect(fts.search("colonies", 10).map((h) => h.id)).toEqual(["c"]);
      const two = fts.search("penguin", 10);
      expect(two.map((h) => h.id).sort()).toEqual(["a", "c"]);
      expect(two[0].score).toBeGreaterThanOrEqual(two[1].score);
      expect(fts.search("zebra", 10)).toEqual([]);
    } finally {
      fts.close();
    }
  });
});
