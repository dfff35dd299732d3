/**
 * What kind of answer a question asks for, by its question word: a year or date ("When…", "哪一年"), a
 * number ("How many…", "多少"), or a name ("Who…", "Where…"). The offline answerer ranks a sentence that
 * holds such a thing (one the question does not already say) above one that only repeats the question's words.
 */

export interface AnswerType {
  kind: "date" | "number" | "name";
  /** Candidate answers of this kind in a sentence. */
  pattern: RegExp;
}

const MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December";
const DATE: AnswerType = {
  kind: "date",
  pattern: new RegExp(
    String.raw`\b(?:1\d{3}|20\d{2})s?\b|\b(?:${MONTHS})\b|\b\d+(?:st|nd|rd|th) century\b|\d{2,4}\s*年|\d{1,2}\s*月`,
    "gu",
  ),
};
const NUMBER: AnswerType = {
  kind: "number",
  pattern:
    /\d+(?:[.,]\d+)*|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|thousand|million|billion|dozen|half)\b|[一二两三四五六七八九十百千万亿半]+(?=[个名位人天年月日次种项条家元岁倍%％])/giu,
};
const NAME: AnswerType = { kind: "name", pattern: /\b\p{Lu}[\p{L}'’-]+(?:\s+\p{Lu}[\p{L}'’-]+)*/gu };

/**
 * Chinese measure words a "多少/几" question may name ("多少起", "几名", "多少欧元"): a number counts as its
 * answer only when that unit follows it ("419起", "20亿欧元", "四次"), so a sentence with some other figure
 * (a date, a percentage) is not taken for the count asked.
 */
const ZH_UNITS =
  "美元|欧元|英镑|日元|港元|人民币|公里|千米|平方米|公顷|吨|元|个|名|位|人|天|年|月|日|次|种|项|条|家|岁|倍|起|件|台|架|艘|辆|座|所|只|头|户|支|场|期|批|款|篇|部|本|张|份|例|股|分钟|小时|周|届|轮|颗|枚|米|亩|斤|度";
const ZH_UNIT_ASKED = new RegExp(`(?:多少|几)(${ZH_UNITS})`, "u");

/** The unit a Chinese count question names, if any ("多少起" → 起). */
export function askedUnit(question: string): string | null {
  return question.match(ZH_UNIT_ASKED)?.[1] ?? null;
}

export function answerType(question: string): AnswerType | null {
  const q = question.trim();
  if (
    /^(?:when\b|in what year|what year|which year|what date|what century|on what date)|\b(?:what|which) (?:year|date|century|decade)\b/i.test(
      q,
    )
  )
    return DATE;
  if (/哪一?年|什么时候|何时|哪天|几月|日期/.test(q)) return DATE;
  if (/\bhow (?:many|much|long|old|far|large|big|tall|high|often)\b|\bwhat (?:percentage|percent|number|amount|proportion)\b/i.test(q))
    return NUMBER;
  if (/多少|几[个名位天年次种项条家岁倍]|多久|多长|多大|多高|多远|比例|百分之/.test(q)) return NUMBER;
  if (/^(?:who|whom|whose)\b|\b(?:who|whom|whose)\b/i.test(q)) return NAME;
  return null;
}

/** Whether `sentence` holds an answer of the type that the question does not already contain. */
export function hasAnswerOfType(type: AnswerType, sentence: string, question: string): boolean {
  const q = question.normalize("NFKC").toLowerCase();
  const unit = type.kind === "number" ? askedUnit(question) : null;
  if (unit) {
    const counted = new RegExp(`(?:\\d+(?:[.,]\\d+)*|[一二两三四五六七八九十百千万亿半几数]+)\\s*[多余]?[十百千万亿]*\\s*${unit}`, "gu");
    return [...sentence.normalize("NFKC").matchAll(counted)].some((m) => !q.includes(m[0].toLowerCase()));
  }
  for (const m of sentence.matchAll(type.pattern)) {
    const found = m[0].normalize("NFKC").toLowerCase();
    if (type.kind === "name" ? !found.split(/\s+/).every((w) => q.includes(w)) : !q.includes(found)) return true;
  }
  return false;
}
