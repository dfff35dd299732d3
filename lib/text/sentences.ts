/**
 * Where sentences end, in English and Chinese: the one splitter of the chunker (lib/chunk/units.ts), the
 * answerer and citation highlighter (lib/agent/extractive.ts), the context around a hit
 * (lib/retrieve/context.ts), the claim a citation marker supports (lib/agent/answer-links.ts) and the
 * offline answer's streaming (lib/agent/offline-model.ts). Browser-safe.
 */

/** Full-width sentence ends: a sentence ends after them whether or not a space follows. */
const CJK_STOPS = "。！？";
/** Latin sentence ends: they end a sentence only before the next sentence's start or the line's end. */
export const LATIN_STOPS = ".!?";
/** Closing quotes and brackets that stay with the sentence they close ("…end." → the quote mark belongs to it). */
const CLOSERS = String.raw`"'”’」』)）\]`;
/** Where a clause ends or pauses: sentence ends, semicolons and commas (as the inside of a character class). */
export const PAUSES = `${LATIN_STOPS}${CJK_STOPS};；,，`;

/**
 * Common English abbreviations (lower case, without their final period): a period after them does not end
 * a sentence ("e.g. the", "Dr. Smith", "U.S. Army").
 */
const ABBREVIATIONS: ReadonlySet<string> = new Set(
  "mr mrs ms dr prof st jr sr gen col lt sgt capt rev gov sen rep pres u.s u.k e.g i.e etc vs no nos fig figs approx al ca inc ltd co corp mt op cf ed eds vol pp jan feb mar apr jun jul aug sep sept oct nov dec".split(
    " ",
  ),
);

/** A run of sentence-end punctuation with the closing quotes after it, or a line break. */
const END_RUN = new RegExp(`([${CJK_STOPS}]+|[${LATIN_STOPS}]+)[${CLOSERS}]*|\\n`, "gu");
/** After a Latin stop: the rest of the line is blank, or the next sentence starts (capital, digit, CJK, or a quote or bracket before one). */
const LINE_END_AFTER = /[^\S\n]*(?:\n|$)/y;
const SENTENCE_AFTER = /[^\S\n]+["“'‘([]?[\p{Lu}\d\p{Script=Han}]/uy;
const WORD_CHAR = /[\p{L}.]/u;

/** The word (letters and periods) right before `at`, looked at over at most 12 characters. */
function wordBefore(text: string, at: number): string {
  let i = at;
  while (i > 0 && at - i < 12 && WORD_CHAR.test(text[i - 1])) i--;
  return text.slice(i, at);
}

function endsLatinSentence(text: string, stop: string, stopAt: number, end: number): boolean {
  LINE_END_AFTER.lastIndex = end;
  SENTENCE_AFTER.lastIndex = end;
  if (!LINE_END_AFTER.test(text) && !SENTENCE_AFTER.test(text)) return false;
  if (stop !== ".") return true;
  // An initial ("William E. Simon") or an abbreviation ("e.g.", "U.S. Army") does not end a sentence.
  const word = wordBefore(text, stopAt);
  return !/^\p{Lu}$/u.test(word) && !ABBREVIATIONS.has(word.toLowerCase());
}

/**
 * Offsets just after each sentence end of `text`, in order. A sentence ends after 。！？ (always); after
 * . ! ? when the line ends or the next sentence starts (a capital, digit or CJK character after a space),
 * except a period after an initial or a common abbreviation (so 3.5, e.g., "U.S. Army" and "William E. Simon"
 * stay whole); and at every line break (the offset after it). Closing quotes stay with their sentence.
 * Semicolons do not end a sentence: clauses joined by ； or ; (tiered rules, enumerations) stay together.
 */
export function sentenceEnds(text: string): number[] {
  const ends: number[] = [];
  for (const m of text.matchAll(END_RUN)) {
    const end = m.index + m[0].length;
    const stop = m[1];
    if (stop && LATIN_STOPS.includes(stop[0]) && !endsLatinSentence(text, stop, m.index, end)) continue;
    ends.push(end);
  }
  return ends;
}

/** `text` cut at its sentence ends (sentenceEnds): each piece's [start, end), untrimmed, the last running to the end. */
export function sentenceRanges(text: string): [number, number][] {
  const bounds = [0, ...sentenceEnds(text), text.length];
  return bounds.slice(1).map((end, i) => [bounds[i], end]);
}

/** Whether `text` ends a sentence or a clause: a stop, semicolon, colon or ellipsis, with any closing quotes. */
const CLAUSE_END = new RegExp(`[${LATIN_STOPS}${CJK_STOPS};；:：…][${CLOSERS}]*$`, "u");
export function endsClause(text: string): boolean {
  return CLAUSE_END.test(text);
}

/** `text` without the sentence-end punctuation and semicolons at its end. */
const TRAILING_STOPS = new RegExp(`[${LATIN_STOPS}${CJK_STOPS};；]+$`, "u");
export function withoutFinalStop(text: string): string {
  return text.replace(TRAILING_STOPS, "");
}
