import { describe, expect, it } from "vitest";
import { sha256 } from "@/lib/ingest/prepare";
import { corpusPasses, reorderedCopy } from "./bench-topup";

describe("the scale bench's top-up copies", () => {
  const text = "# Title\n\nFirst block.\n\n## Section\n\nSecond block.\n\nThird block.";
  it("keep every block, in another order, with another content hash per pass", () => {
    const hashes = new Set<string>();
    for (let pass = 0; pass < 6; pass++) {
      const copy = reorderedCopy(text, pass);
      expect(copy.split("\n\n").sort()).toEqual(text.split("\n\n").sort());
      hashes.add(sha256(copy));
    }
    expect(hashes.size).toBe(6);
    expect(reorderedCopy(text, 0)).toBe(text);
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
