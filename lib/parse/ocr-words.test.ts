/** Repairs of OCR's look-alike characters in Latin text (lib/parse/ocr-words.ts). */
import { describe, expect, it } from "vitest";
import { repairWords } from "./ocr-words";

describe("OCR word repairs", () => {
  it("reads a letter O between digits as a zero", () => {
    expect(repairWords("a balance of 4o0 euros, room 1O05 and 2oo0")).toBe("a balance of 400 euros, room 1005 and 2000");
  });

  it("keeps an O that is not between digits", () => {
    expect(repairWords("Room 4o, 2 oranges, o2 and O3")).toBe("Room 4o, 2 oranges, o2 and O3");
  });

  it("reads a small l starting a sentence as a capital I", () => {
    expect(repairWords("lf you lose it, call us. lt costs nothing!\nln that case ask. l can help?")).toBe(
      "If you lose it, call us. It costs nothing!\nIn that case ask. I can help?",
    );
  });

  it("keeps a small l inside a sentence and after an abbreviation", () => {
    const text = "Please lock the door, e.g. lock it twice. The list is long and\nlater lines stay";
    expect(repairWords(text)).toBe(text);
  });
});
