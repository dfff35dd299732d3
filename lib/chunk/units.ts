import { sentenceRanges } from "@/lib/text/sentences";

/** The smallest piece the packer moves: a trimmed sentence (or a slice of an over-long one). */
export interface Unit {
  start: number;
  end: number;
  /** How strong the boundary before this unit is: 3 section start, 2 paragraph, 1 sentence/line, 0 forced split. */
  strength: 0 | 1 | 2 | 3;
}

const PARAGRAPH_BREAK_RE = /\n[ \t\r]*\n\s*/g;

/** Sentence units of text[from, to), in order; whitespace between them belongs to no unit. */
export function splitUnits(text: string, from: number, to: number, window: number, size: number): Unit[] {
  const units: Unit[] = [];
  let strength: Unit["strength"] = 3;
  for (const [ps, pe] of splitAt(text, from, to, PARAGRAPH_BREAK_RE)) {
    for (const [ss, se] of sentencesOf(text, ps, pe)) {
      const [s, e] = trim(text, ss, se);
      if (s >= e) continue;
      for (const [hs, he] of e - s > size ? hardSplit(text, s, e, window) : [[s, e] as const]) {
        units.push({ start: hs, end: he, strength });
        strength = 0;
      }
      strength = 1;
    }
    strength = strength === 3 ? 3 : 2;
  }
  return units;
}

/** Splits [from, to) at each match of re; the match goes with neither piece. */
function splitAt(text: string, from: number, to: number, re: RegExp): [number, number][] {
  const out: [number, number][] = [];
  const slice = text.slice(from, to);
  let last = 0;
  for (const m of slice.matchAll(re)) {
    if (m[0].length === 0) continue;
    out.push([from + last, from + m.index]);
    last = m.index + m[0].length;
  }
  out.push([from + last, to]);
  return out;
}

/** The sentences of [from, to) (lib/text/sentences), untrimmed. */
function sentencesOf(text: string, from: number, to: number): [number, number][] {
  return sentenceRanges(text.slice(from, to)).map(([s, e]) => [from + s, from + e]);
}

function trim(text: string, s: number, e: number): [number, number] {
  while (s < e && /\s/.test(text[s])) s++;
  while (e > s && /\s/.test(text[e - 1])) e--;
  return [s, e];
}

/** Cuts an over-long sentence into pieces of at most `window`, preferring a space in the window's second half. */
function hardSplit(text: string, s: number, e: number, window: number): [number, number][] {
  const out: [number, number][] = [];
  let pos = s;
  while (e - pos > window) {
    let cut = pos + window;
    const space = text.slice(pos + Math.ceil(window / 2), cut + 1).search(/\s\S*$/);
    if (space >= 0) cut = pos + Math.ceil(window / 2) + space;
    else if (isLowSurrogate(text, cut)) cut = cut - 1 > pos ? cut - 1 : cut + 1;
    const [ps, pe] = trim(text, pos, cut);
    if (ps < pe) out.push([ps, pe]);
    pos = trim(text, cut, e)[0];
  }
  if (pos < e) out.push([pos, e]);
  return out;
}

function isLowSurrogate(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return c >= 0xdc00 && c <= 0xdfff;
}
