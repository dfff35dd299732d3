/**
 * Where a recognised line of Latin text gets its word spaces (lib/parse/ocr-engine.ts): the recogniser's decoder loses
 * most of them on scan-like pages, so a space goes between two characters wherever the line's pixels show a gap as wide
 * as the page's word gaps, the recogniser's own spaces kept.
 */
import { CJK_SPACELESS_CLASS } from "@/lib/text/cjk";
import { LATIN_STOPS } from "@/lib/text/sentences";

/** A run of columns without ink in a line image: its width in line heights, and where it is (fraction of the width). */
export interface Gap {
  width: number;
  at: number;
}

/** The gaps between inked columns of a line image (greyscale). */
export function inkGaps(grey: Uint8Array, width: number, height: number): Gap[] {
  let lo = 255;
  let hi = 0;
  for (const v of grey) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (hi - lo < 64) return [];
  const dark = (lo + hi) / 2;
  const gaps: Gap[] = [];
  let run = 0;
  let seen = false;
  for (let x = 0; x < width; x++) {
    let ink = false;
    for (let y = 0; y < height && !ink; y++) ink = grey[y * width + x] < dark;
    if (!ink) run++;
    else {
      if (seen && run > 0) gaps.push({ width: run / height, at: (x - run / 2) / width });
      run = 0;
      seen = true;
    }
  }
  return gaps;
}

/**
 * The narrowest word gap of a page, in line heights: its gaps split in two groups by Otsu's method, the wider being
 * word gaps, kept within 0.15–0.3 line heights (a page of single words has letter gaps only).
 */
export function wordGapThreshold(gaps: number[]): number {
  const widths = [...gaps].sort((a, b) => a - b);
  const total = widths.reduce((a, b) => a + b, 0);
  let best = 0;
  let split = Number.POSITIVE_INFINITY;
  let below = 0;
  for (let k = 1; k < widths.length; k++) {
    below += widths[k - 1];
    if (widths[k] === widths[k - 1]) continue;
    const between = k * (widths.length - k) * ((total - below) / (widths.length - k) - below / k) ** 2;
    if (between > best) {
      best = between;
      split = widths[k];
    }
  }
  return Math.min(Math.max(split, 0.15), 0.3);
}

const SPACELESS = new RegExp(`[${CJK_SPACELESS_CLASS}]`, "u");

export interface ReadLine {
  /**
   * Each character, where it is along the line (0–1), the recogniser's highest score for a space since the one before,
   * and for a small letter its capital's score as a share of its own ("l": "I"'s).
   */
  chars: { ch: string; step: number; space: number; upper: number }[];
  gaps: Gap[];
}

/** A fullwidth form of an ASCII character (the Chinese model reads "(" as "（" as often as not). */
const FULLWIDTH = /^[\uff01-\uff5e]$/u;
const LATIN = /^[A-Za-z0-9]$/;
/** Below a word gap, a gap still is one where it is this wide and the recogniser's space score is at least SPACE_SCORE. */
const NEAR_WORD_GAP = 0.5;
const SPACE_SCORE = 0.1;
/**
 * In a line where the recogniser put spaces itself, a gap where it put none is a word gap only when it is as wide as
 * this share of the line's own word gaps (or NEAR_LINE_GAP with some space score): capitals, digits and a fixed-width
 * typeface have wide gaps between letters, which a page-wide measure takes for word gaps ("PURPOS E").
 */
const LINE_GAP = 0.7;
const NEAR_LINE_GAP = 0.9;
/** Between two capitals or two digits, a gap is a word gap (in a line the recogniser spaced nowhere) when this many times the page's. */
const ALIKE = [/^[A-Z]$/, /^[0-9]$/];
const WIDE_ALIKE = 1.5;
const LETTER = /^[A-Za-z]$/;
/** A capital's score, as a share of the small letter's read, above which it is read as the capital among capitals. */
const CAPITAL_SCORE = 0.05;
const TAIL_CAPITAL_SCORE = 0.03;
/** No space is put before these (a stop, a comma, a closing bracket) nor after OPENING. */
const CLOSING = new RegExp(`^[${LATIN_STOPS},:;)\\]}%]$`);
const OPENING = /^[([{]$/;
const DIGIT = /^[0-9]$/;

/** Each boundary's gap (boundary i: before character i): the widest ink gap whose middle is nearest it. */
function boundaryGaps(chars: ReadLine["chars"], gaps: Gap[]): number[] {
  const widths = new Array<number>(chars.length).fill(0);
  if (chars.length < 2) return widths;
  const mids = chars.map((c, i) => (i === 0 ? Number.NEGATIVE_INFINITY : (chars[i - 1].step + c.step) / 2));
  for (const g of gaps) {
    if (g.at <= chars[0].step || g.at >= chars[chars.length - 1].step) continue;
    let best = 1;
    for (let i = 2; i < chars.length; i++) if (Math.abs(mids[i] - g.at) < Math.abs(mids[best] - g.at)) best = i;
    widths[best] = Math.max(widths[best], g.width);
  }
  return widths;
}

/** Whether a space may be put before character i by its gap: never inside a number ("276.20", "1.1.") nor before a stop or after a bracket. */
function mayBreak(chars: string[], i: number): boolean {
  const [before, prev, ch] = [chars[i - 2] ?? "", chars[i - 1], chars[i]];
  if (CLOSING.test(ch) || OPENING.test(prev)) return false;
  return !(DIGIT.test(ch) && /^[.,]$/.test(prev) && DIGIT.test(before));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * A line's text: the recogniser's characters, with a space between two Latin ones where a word gap lies (or a gap
 * nearly as wide that the recogniser also scored as a space) — as wide as the page's word gaps, and as the line's
 * own where the recogniser spaced some of its words —, never inside a number or before a stop; fullwidth punctuation
 * next to Latin text as ASCII; a small letter inside a word of capitals as its capital where the recogniser gave that
 * some score ("JSoN", "SCiM": small c, o, s, v, w, x, z look like their capitals).
 */
export function lineText({ chars: read, gaps }: ReadLine, threshold: number): string {
  const chars = read.map((c, i) =>
    FULLWIDTH.test(c.ch) && (LATIN.test(read[i - 1]?.ch ?? "") || LATIN.test(read[i + 1]?.ch ?? ""))
      ? { ...c, ch: c.ch.normalize("NFKC") }
      : c,
  );
  const texts = chars.map((c) => c.ch);
  const widths = boundaryGaps(chars, gaps);
  const spacedByModel = chars.flatMap((c, i) => (c.ch === " " ? [Math.max(widths[i], widths[i + 1] ?? 0)] : []));
  const lineGap = spacedByModel.length ? median(spacedByModel) : 0;
  const spaced = chars.map((c, i) => {
    const prev = chars[i - 1];
    if (!prev || prev.ch === " " || c.ch === " " || SPACELESS.test(prev.ch) || SPACELESS.test(c.ch)) return false;
    if (!mayBreak(texts, i)) return false;
    const gap = widths[i];
    // Without the line's own word gaps to go by, capitals and digits (wide gaps between them) need a wider one.
    if (!lineGap && ALIKE.some((re) => re.test(prev.ch) && re.test(c.ch)) && gap < WIDE_ALIKE * threshold) return false;
    return (
      gap >= Math.max(threshold, LINE_GAP * lineGap) ||
      (gap >= Math.max(NEAR_WORD_GAP * threshold, NEAR_LINE_GAP * lineGap) && c.space >= SPACE_SCORE)
    );
  });
  const out = chars.map((c) => c.ch);
  // Words of letters, as the spaces above cut them.
  for (let from = 0; from < chars.length; ) {
    let to = from;
    while (to + 1 < chars.length && !spaced[to + 1] && LETTER.test(chars[to + 1].ch) && LETTER.test(chars[from].ch)) to++;
    const word = out.slice(from, to + 1);
    // Inside a word, or last in one of three letters or more ("TLs").
    for (let k = 1; k < (word.length >= 3 ? word.length : word.length - 1); k++) {
      const others = word.filter((_, j) => j !== k);
      if (/^[a-z]$/.test(word[k]) && chars[from + k].upper >= CAPITAL_SCORE && others.every((ch) => /^[A-Z]$/.test(ch))) {
        out[from + k] = word[k] === "l" ? "I" : word[k].toUpperCase();
      }
    }
    // A capital followed only by small look-alikes that the recogniser also gave their capital some score ("Sso", "Us":
    // SSO, US); a small letter of a word in small letters gets its capital next to none (under 0.01).
    const tail = chars.slice(from + 1, to + 1);
    if (word.length >= 2 && /^[A-Z]$/.test(out[from]) && tail.every((c) => /^[cosvwxz]$/.test(c.ch) && c.upper >= TAIL_CAPITAL_SCORE)) {
      for (let k = from + 1; k <= to; k++) out[k] = out[k].toUpperCase();
    }
    from = to + 1;
  }
  return out
    .map((ch, i) => (spaced[i] ? ` ${ch}` : ch))
    .join("")
    .replace(/\s+/g, " ")
    .trim();
}
