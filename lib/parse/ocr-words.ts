/**
 * Repairs of the recogniser's look-alike confusions in Latin text that need no dictionary, only the characters
 * around them: a letter O among digits is a zero, and a sentence does not start with a small l (it is an I).
 */
import { LATIN_STOPS } from "@/lib/text/sentences";

/** A letter o or O between digits: "4o0" is 400. */
const O_AMONG_DIGITS = /(?<=\d)[oO]+(?=\d)/g;

/**
 * A word starting with a small l at the start of a sentence: the page's start, or after a sentence's end (a full stop,
 * question or exclamation mark; not an abbreviation such as "e.g." that holds a stop of its own) and a space or line break.
 */
const L_STARTING_SENTENCE = new RegExp(
  String.raw`(^|(?:^|[\s(])(?![a-zA-Z]\.[a-zA-Z])[^\s.]+[${LATIN_STOPS}]["')\]]?\s+)l(?=[a-z]*\b)`,
  "g",
);

/** The text with the repairs above. */
export function repairWords(text: string): string {
  return text.replace(O_AMONG_DIGITS, (o) => "0".repeat(o.length)).replace(L_STARTING_SENTENCE, "$1I");
}
