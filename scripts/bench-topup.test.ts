import { describe, expect, it } from "vitest";
import { sha256 } from "@/lib/ingest/prepare";
import { corpusPasses, reorderedCopy } from "./bench-topup";

describe("the scale bench's top-up copies", () => {
  const text = "# Title\n\nFirst block.\n\n## Section\n\nSecond block.\n\nThird block.";
  it("keep every section whole, in another order, with another content hash per pass", () => {
    const sections = (t: string) =>
      t
        .replace(/\n\n\(copy \d+\)$/, "")
        .split(/\n(?=#{1,6} )/)
        .map((s) => s.trim())
        .sort();
    const hashes = new Set<string>();
    for (let pass = 0; pass < 6; pass++) {
      const copy = reorderedCopy(text, pass);
      expect(sections(copy)).toEqual(sections(text));
      hashes.add(sha256(copy));
    }
    expect(hashes.size).toBe(6);
    expect(reorderedCopy(text, 0)).toBe(text);
    expect(reorderedCopy(text, 1).startsWith("## Section\n\nSecond block.\n\nThird block.")).toBe(true);
  });
  it("reorder the blocks of a text without headings", () => {
    const plain = "One.\n\nTwo.\n\nThree.";
    expect(reorderedCopy(plain, 1)).toBe("Two.\n\nOne.\n\nThree.\n\n(copy 1)");
  });
  it("pass over the real files first, then their copies, deterministically", () => {
    expect([...corpusPasses(["a", "b"], 2)]).toEqual([
      { file: "a", pass: 0 },
      { file: "b", pass: 0 },
      { file: "a", pass: 1 },
      { file: "b", pass: 1 },
    ]);
  });
});
