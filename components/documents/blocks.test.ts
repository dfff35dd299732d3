import { describe, expect, it } from "vitest";
import { documentBlocks, splitBlocks } from "./blocks";

describe("document blocks", () => {
  it("splits Markdown at blank lines, keeps code fences whole and headings apart, with exact offsets", () => {
    const text = "# Title\nIntro line\n\n```\na\n\nb\n```\n\nPara one\ncontinues";
    const blocks = splitBlocks(text).map((b) => text.slice(b.start, b.end));
    expect(blocks).toEqual(["# Title", "Intro line", "```\na\n\nb\n```", "Para one\ncontinues"]);
  });

  it("reads CSV records back into fields", () => {
    const text = "# people\n\n## Rows 1–2\n\nname: Ada\nrole: engineer\n\nname: Bo\nrole: chef";
    const recs = documentBlocks(text, "text/csv").filter((b) => b.kind === "record");
    expect(recs.map((r) => r.fields)).toEqual([
      [
        ["name", "Ada"],
        ["role", "engineer"],
      ],
      [
        ["name", "Bo"],
        ["role", "chef"],
      ],
    ]);
  });

  it("puts each PDF paragraph on its page", () => {
    const text = "Page one text.\n\nPage two text.";
    const blocks = documentBlocks(text, "application/pdf", [
      { page: 1, start: 0 },
      { page: 2, start: 16 },
    ]);
    expect(blocks.map((b) => [b.text, b.page])).toEqual([
      ["Page one text.", 1],
      ["Page two text.", 2],
    ]);
  });
});
