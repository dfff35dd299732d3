/**
 * Chinese question words and particles: they say that something is asked, not what about, so matching drops
 * them from a question ("如何重置令牌？" and "令牌怎么重置" ask the same). One core list; each matcher adds
 * the words its own matching needs (documented where it does). Browser-safe.
 */

/** Question words every matcher drops (the FAQ match, the answerer's coverage, its question terms). */
export const ZH_QUESTION_WORDS: readonly string[] = [
  "请问",
  "如何",
  "怎么样",
  "怎么",
  "怎样",
  "为什么",
  "什么",
  "是否",
  "能否",
  "可以",
  "可否",
  "哪些",
  "哪里",
  "多少",
];
/** Sentence particles every matcher drops. */
export const ZH_PARTICLES: readonly string[] = ["吗", "呢", "吧", "啊", "的", "了"];
/** Question and clause punctuation, full-width and ASCII (inside a character class). */
export const QUESTION_PUNCTUATION = "？?，,。！!：:";

/**
 * A global regex matching any of `words` (the longest first, so 怎么样 is taken before 怎么) or any single
 * character of `chars` (the inside of a character class), for text.replace(re, " ").
 */
export function fillerPattern(words: readonly string[], chars: string): RegExp {
  const alternatives = [...new Set(words)].sort((a, b) => b.length - a.length);
  return new RegExp(`${alternatives.join("|")}|[${chars}]`, "g");
}
