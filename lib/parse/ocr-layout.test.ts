/** Reading order of recognised lines on a page, from their boxes (the OCR engine's output, made up here). */
import { describe, expect, it } from "vitest";
import type { OcrLine } from "./ocr-engine";
import { layoutText } from "./ocr-layout";

const HEIGHT = 30;
const LEADING = 44;

/** A line of text at (x, row) of a page, as wide as `width` pixels. */
function line(text: string, x: number, row: number, width: number): OcrLine {
  const y = 100 + row * LEADING;
  return {
    text,
    box: [
      [x, y],
      [x + width, y],
      [x + width, y + HEIGHT],
      [x, y + HEIGHT],
    ],
  };
}

const LEFT = [
  "Staff parking permits are issued",
  "by the facilities desk on the",
  "ground floor. Each permit costs",
  "35 euros per month and is valid",
  "for one named vehicle only.",
];
const RIGHT = [
  "Bicycle lockers are free of charge",
  "for every employee. Ask for a key",
  "at the front desk and return it",
  "when you leave the company, as",
  "lost keys are charged.",
];

describe("OCR reading order", () => {
  it("reads a page in two columns column by column, a title over both first", () => {
    const lines = [
      line("Getting to the office", 300, 0, 600),
      ...LEFT.map((t, i) => line(t, 110, i + 1, t.length * 14)),
      ...RIGHT.map((t, i) => line(t, 650, i + 1, t.length * 14)),
    ];
    expect(layoutText(lines.reverse()).split("\n")).toEqual(["Getting to the office", ...LEFT, ...RIGHT]);
  });

  it("keeps lines that run across both halves after the columns above them, the columns below after it", () => {
    const lines = [
      ...LEFT.map((t, i) => line(t, 110, i, t.length * 14)),
      ...RIGHT.map((t, i) => line(t, 650, i, t.length * 14)),
      line("A footnote that runs across the whole page, from margin to margin.", 110, 6, 1000),
    ];
    expect(layoutText(lines).split("\n")).toEqual([
      ...LEFT,
      ...RIGHT,
      "A footnote that runs across the whole page, from margin to margin.",
    ]);
  });

  it("keeps a single column's lines in order, short lines and all", () => {
    const text = [...LEFT, "Short.", ...RIGHT, "End."];
    const lines = text.map((t, i) => line(t, 110, i, t.length * 14));
    expect(layoutText(lines.reverse()).split("\n")).toEqual(text);
  });

  it("reads a table's rows across its columns, cells joined by |, each cell of a row after its header named", () => {
    const rows = [
      ["Permit", "Monthly fee"],
      ["Staff parking", "35 euros"],
      ["Bicycle locker", "8 euros"],
      ["Visitor day pass", "6 euros"],
      ["Night shift parking", "20 euros"],
      ["Motorbike space", "15 euros"],
    ];
    const lines = rows.flatMap(([a, b], i) => [line(a, 110, i, a.length * 14), line(b, 630, i, b.length * 14)]);
    expect(layoutText(lines).split("\n")).toEqual([
      "Permit | Monthly fee",
      ...rows.slice(1).map(([a, b]) => `Permit: ${a} | Monthly fee: ${b}`),
    ]);
  });

  it("cuts a header whose names are set closer than its rows' cells at its rows' columns", () => {
    const at = [110, 370, 580, 750];
    const rows = [
      ["Hamburg", "Rhenus", "3", "EUR 276.20"],
      ["Lyon", "Geodis", "5", "EUR 398.75"],
      ["Milan", "Arcese", "4", "EUR 312.40"],
    ];
    // "Transit days" ends 20 px before "Cost per pallet" begins: one box, as the detector finds it.
    const header = [line("Route", at[0], 0, 70), line("Carrier", at[1], 0, 98), line("Transit days Cost per pallet", at[2], 0, 380)];
    const lines = [...header, ...rows.flatMap((r, i) => r.map((cell, k) => line(cell, at[k], i + 1, cell.length * 14)))];
    expect(layoutText(lines).split("\n")).toEqual([
      "Route | Carrier | Transit days | Cost per pallet",
      ...rows.map(([a, b, c, d]) => `Route: ${a} | Carrier: ${b} | Transit days: ${c} | Cost per pallet: ${d}`),
    ]);
  });

  it("reads a table of long cells across its columns when its rows are not prose", () => {
    const rows = Array.from({ length: 6 }, (_, i) => [`Item ${i + 1}`, `Description of item number ${i + 1}, in full`]);
    const lines = rows.flatMap(([a, b], i) => [line(a, 110, i, a.length * 14), line(b, 400, i, b.length * 14)]);
    expect(layoutText(lines).split("\n")).toEqual(rows.map((r) => r.join(" | ")));
  });
});
