/**
 * The scripts written without spaces between words (Han, kana, Hangul): one definition for the tokenizer,
 * the query analysis, the embedder, the reranker, the answerer and the UI. Browser-safe (no node imports).
 */

const HAN = String.raw`\p{Script=Han}`;
const KANA_HANGUL = String.raw`\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}`;
/** The prolonged-sound and iteration marks (ー々〆): no script of their own, but part of a CJK word. */
const CJK_MARKS = "ー々〆";

/** Han, kana and Hangul, as the inside of a `u`-flag character class: `[${CJK_CLASS}]`. */
export const CJK_CLASS = HAN + KANA_HANGUL;
/** CJK_CLASS with the marks ー々〆: what the tokenizer keeps in one CJK run. */
export const CJK_WORD_CLASS = CJK_CLASS + CJK_MARKS;
/** CJK_WORD_CLASS without Han: a run that jieba does not segment (kana, Hangul). */
export const KANA_HANGUL_WORD_CLASS = KANA_HANGUL + CJK_MARKS;

/**
 * A run of CJK characters (global: for replace and matchAll, which do not keep lastIndex between calls;
 * never call test or exec on it).
 */
export const CJK_RUN_RE = new RegExp(`[${CJK_CLASS}]+`, "gu");
const HAS_CJK_RE = new RegExp(`[${CJK_CLASS}]`, "u");

/** Whether the text has a Han, kana or Hangul character (how the app tells Chinese text from English). */
export function hasCjk(text: string): boolean {
  return HAS_CJK_RE.test(text);
}

/** CJK_CLASS with the full-width punctuation (。、「」，！？；：…): text joined to it needs no space. */
export const CJK_SPACELESS_CLASS = String.raw`${CJK_CLASS}\u3000-\u303f\uff00-\uffef`;
