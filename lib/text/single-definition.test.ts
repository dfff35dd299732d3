/**
 * The text rules live in lib/text only: a copy of the CJK class or of the sentence-end punctuation elsewhere
 * drifts from it (the copies once differed in their closing quotes and CJK ranges).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const DIRS = ["lib", "components", "mcp", "app", "scripts"];
const SKIP = new Set(["lib/text", "node_modules", ".next"]);

/** Literals that only lib/text may write. */
const FORBIDDEN: [string, RegExp][] = [
  ["a CJK code-point range", /\\u(?:\{)?(?:3400|4e00|9fff|9fa5)\b|[一㐀]-[龥鿿龯]/i],
  ["the CJK script class", /Script=(?:Hiragana|Katakana|Hangul)/],
];
/** A character class with all of the full-width or all of the Latin sentence ends: a sentence splitter of its own. */
const sentenceEndClass = (text: string) =>
  (text.match(/\[[^\]\n]*\]/g) ?? []).some((c) => [..."。！？"].every((ch) => c.includes(ch)) || [...".!?"].every((ch) => c.includes(ch)));

/** Source files under `rel` (relative to the repository root), tests left out. */
function sources(rel: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(path.join(ROOT, rel), { withFileTypes: true })) {
    const p = path.posix.join(rel, e.name);
    if (e.isDirectory()) {
      if (!SKIP.has(p) && !SKIP.has(e.name)) out.push(...sources(p));
    } else if (/\.(?:ts|tsx|mjs|js)$/.test(e.name) && !/\.test\.tsx?$/.test(e.name)) out.push(p);
  }
  return out;
}

describe("text rules have one definition (lib/text)", () => {
  it("no CJK range or sentence-end class outside lib/text", () => {
    const found: string[] = [];
    const files = DIRS.flatMap((dir) => sources(dir));
    expect(files.length).toBeGreaterThan(100);
    for (const file of files) {
      const text = readFileSync(path.join(ROOT, file), "utf8");
      for (const [what, re] of FORBIDDEN) if (re.test(text)) found.push(`${file}: ${what}`);
      if (sentenceEndClass(text)) found.push(`${file}: the sentence-end punctuation`);
    }
    expect(found).toEqual([]);
  });

  it("would catch a copy", () => {
    expect(FORBIDDEN.some(([, re]) => re.test(String.raw`/[\u4e00-\u9fff]/`))).toBe(true);
    expect(sentenceEndClass("/[.!?。！？]/")).toBe(true);
    expect(sentenceEndClass("/[.。!！?？;；]+$/")).toBe(true);
    expect(sentenceEndClass("text.split(/(?<=[.!?])\\s+/)")).toBe(true);
    expect(sentenceEndClass("// Sentences end at 。！？")).toBe(false);
  });
});
