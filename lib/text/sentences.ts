/**
 * Where sentences end, in English and Chinese: one definition of the punctuation for the chunker
 * (lib/chunk/units.ts), the context around a hit (lib/retrieve/context.ts), the answerer and the citation
 * highlighter (lib/agent/extractive.ts), the answer's streaming and citation links (lib/agent/offline-model.ts,
 * lib/agent/answer-links.ts) and the query fitting (lib/retrieve/limits.ts). Each builds its rule from these
 * pieces, as the inside of a character class. Browser-safe.
 */

/** Full-width sentence ends: a sentence ends after them whether or not a space follows. */
export const CJK_STOPS = "。！？";
/** Latin sentence ends: they end a sentence only before a space, a closing quote or the end. */
export const LATIN_STOPS = ".!?";
/** Both. */
export const SENTENCE_STOPS = LATIN_STOPS + CJK_STOPS;
/**
 * Closing quotes and brackets that stay with the sentence they close ("…end." → the quote mark belongs to
 * the sentence). The union of the sets the former copies used (some lacked 」』 or ]).
 */
export const CLOSERS = String.raw`"'”’」』)）\]`;

/**
 * Common English abbreviations (lower case, without their final period): a period after them does not end
 * a sentence ("e.g. the", "Dr. Smith", "U.S. Army").
 */
export const ABBREVIATIONS: ReadonlySet<string> = new Set(
  "mr mrs ms dr prof st jr sr gen col lt sgt capt rev gov sen rep pres u.s u.k e.g i.e etc vs no nos fig figs approx al ca inc ltd co corp mt op cf ed eds vol pp jan feb mar apr jun jul aug sep sept oct nov dec".split(
    " ",
  ),
);

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Text that ends with one of ABBREVIATIONS (case-insensitive), as a whole word. */
export const ENDS_WITH_ABBREVIATION = new RegExp(String.raw`\b(?:${[...ABBREVIATIONS].map(escapeRegExp).join("|")})$`, "i");
