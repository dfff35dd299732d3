import { describe, expect, it } from "vitest";
import { indexedChunks } from "./indexed";
import { packChunks, unpackChunks } from "./packed";

describe("packed chunks (parse worker → main thread)", () => {
  it("unpack to exactly the chunks that were packed: headings, pages, Chinese, emoji, a leading BOM character", async () => {
    const text = [
      "\uFEFF# Handbook",
      "## Leave 年假",
      "员工每年享有带薪年假，满一年不满五年的每年十天。 Annual leave accrues monthly. 🎉 Party time.",
      "## Expenses",
      `${"Receipts are kept for seven years. ".repeat(40)}报销金额超过五千元的，须经部门负责人书面审批。`,
    ].join("\n\n");
    const pages = [
      { page: 1, start: 0 },
      { page: 2, start: text.indexOf("## Expenses") },
    ];
    for (const chunks of [indexedChunks(text, { size: 120, overlap: 20, pages }), indexedChunks(text, { size: 500, overlap: 60 })]) {
      expect(chunks.length).toBeGreaterThan(1);
      const packed = packChunks(chunks);
      expect(await unpackChunks(structuredClone(packed))).toEqual(chunks);
    }
  });

  it("unpack thousands of chunks in slices, answering the event loop in between", async () => {
    const text = Array.from({ length: 6000 }, (_, i) => `Paragraph ${i} about leave and expenses. 第${i}段。`).join("\n\n");
    const chunks = indexedChunks(text, { size: 40, overlap: 0 });
    const packed = packChunks(chunks);
    let turns = 0;
    const timer = setInterval(() => turns++, 0);
    const unpacked = await unpackChunks(packed);
    clearInterval(timer);
    expect(unpacked).toEqual(chunks);
    expect(turns).toBeGreaterThan(0);
  });

  it("packs no chunks", async () => {
    expect(await unpackChunks(packChunks([]))).toEqual([]);
  });
});
