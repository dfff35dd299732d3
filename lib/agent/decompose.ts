/**
 * Questions that are not one plain question: several questions in one message ("What is the sick-leave
 * policy and who approves expenses?", "病假怎么请？报销找谁审批？"), and follow-ups that only make sense
 * with the previous turn ("and for part-time staff?", "那兼职员工呢？"). Rules only; pure and shared by the
 * offline answerer and the model path's gate.
 */
import { MAX_QUERY_CHARS } from "@/lib/limits";
import { hasCjk } from "@/lib/text/cjk";
import { splitSentences } from "./extractive";

export const MAX_PARTS = 4;

const EN_ASK = "(?:who|whom|whose|what|when|where|which|why|how|is|are|was|were|do|does|did|can|could|should|will|would|may|must|has|have)";
const ZH_ASK = /谁|什么|哪|多少|几|怎么|怎样|如何|为什么|为何|是否|吗|呢|多久|何时/;

/** Words that carry content (a part needs at least two to stand alone). */
function contentSize(part: string): number {
  const latin = part.replace(/[\p{Script=Han}]/gu, " ").match(/\p{L}{3,}|\d+/gu)?.length ?? 0;
  const han = part.match(/\p{Script=Han}/gu)?.length ?? 0;
  return latin + Math.floor(han / 2);
}

function tidy(part: string, cjk: boolean): string {
  const p = part
    .trim()
    .replace(/^(?:and|also|plus|then|以及|还有|另外|并且|同时|和|与)\s*/i, "")
    .replace(/[,，;；、\s]+$/, "")
    .trim();
  if (!p) return p;
  return /[?？]$/.test(p) ? p : `${p}${cjk ? "？" : "?"}`;
}

/**
 * Splits a multi-part question into 2–4 self-contained sub-questions, or returns it whole (one element).
 * Splits at question marks followed by more text, at ", and who/what/…" (a second question joined by a
 * conjunction), at "；", and in Chinese at "，以及/还有/另外" and between comma-joined clauses that each
 * ask something.
 */
export function splitQuestion(question: string): string[] {
  const q = question.trim();
  const cjk = hasCjk(q);
  let parts = q.split(/(?<=[?？])\s*(?=\S)/u);
  parts = parts.flatMap((p) => p.split(new RegExp(String.raw`\s*[,;]?\s+(?:and|also|plus)\s+(?=${EN_ASK}\b)`, "i")));
  parts = parts.flatMap((p) => p.split(/\s*[；;]\s*/u));
  parts = parts.flatMap((p) => p.split(/[，,]\s*(?=以及|还有|另外|并且|同时)/u));
  parts = parts.flatMap((p) => {
    const clauses = p.split(/[，,]/u);
    if (clauses.length < 2 || !clauses.every((c) => ZH_ASK.test(c) && contentSize(c) >= 2)) return [p];
    return clauses;
  });
  const out = parts.map((p) => tidy(p, cjk)).filter((p) => p.length > 0);
  if (out.length < 2 || out.length > MAX_PARTS || out.some((p) => contentSize(p) < 2)) return [q];
  return out;
}

/**
 * Whether a question may have several parts, so that a model is asked to decompose it: the rules split it,
 * or it joins clauses with a conjunction and asks at least two things. Simple questions skip the step.
 */
export function mayHaveParts(question: string): boolean {
  if (splitQuestion(question).length > 1) return true;
  const asks =
    (question.match(new RegExp(String.raw`\b${EN_ASK}\b`, "gi"))?.length ?? 0) +
    (question.match(new RegExp(ZH_ASK.source, "g"))?.length ?? 0);
  return /\b(?:and|as well as|also|plus)\b|以及|还有|另外|并且|同时|和|、/iu.test(question) && asks >= 2 && contentSize(question) >= 4;
}

const EN_FOLLOW = /^(?:and|but|also|so|what about|how about|and what about|what if|same for|and if|or)\b/i;
const EN_ANAPHORA = /\b(?:it|its|they|them|their|that|this|those|these|he|she|his|her|there)\b/i;
const ZH_FOLLOW = /^(?:那|那么|那如果|还有|另外|而|如果是|要是)|呢[?？]?$/u;
const ZH_ANAPHORA = /他们|她们|它们|他|她|它|这个|那个|这些|那些|其|该/u;

/**
 * A follow-up: a question that leans on the previous turn ("and for part-time staff?", "那兼职员工呢？",
 * "who approves it?"): it opens with a continuing word, or is short and refers back with a pronoun, or is
 * very short.
 */
export function isFollowUp(question: string): boolean {
  const q = question.trim();
  const size = contentSize(q);
  if (hasCjk(q)) return ZH_FOLLOW.test(q) || (ZH_ANAPHORA.test(q) && size <= 6) || size <= 2;
  return EN_FOLLOW.test(q) || (EN_ANAPHORA.test(q) && size <= 5) || size <= 2;
}

const EN_ELLIPSIS =
  /^(?:and|but|so|also|or)?\s*(?:for|in|on|if|when|during|after|before|without|with|what if|how long|how much|how many|how often|who|whom|when|where|can|could|should|must|do|does|is|are)\b/i;
const ZH_ELLIPSIS =
  /^(?:那么?|还有|另外|而|如果是|要是)?(?:需要|要|得|可以|能|应该|该|怎么|如何|多久|多少|什么时候|何时|是否|还|也|会|有没有|谁)/u;

/**
 * A follow-up with no subject of its own ("and for part-time staff?", "那需要提前多久申请？", "who approves
 * it?"): it continues the previous question's subject whatever the documents say. Other follow-ups ("What
 * about the VPN policy?", "那年假呢？") may name a new subject (see topicShift in offline-model.ts).
 */
export function isEllipsis(question: string): boolean {
  const q = question.trim();
  if (hasCjk(q)) return ZH_ELLIPSIS.test(q) || (ZH_ANAPHORA.test(q) && contentSize(q) <= 6);
  return EN_ELLIPSIS.test(q) || (EN_ANAPHORA.test(q) && contentSize(q) <= 5) || contentSize(q) <= 1;
}

/** The search query for a follow-up: the question and the previous question, whose subject it continues. */
export function followUpQuery(question: string, previous: string | undefined): string {
  if (!previous || !isFollowUp(question)) return question;
  return `${question.trim()} ${previous.trim()}`;
}

/** How much of a long message's end the offline answerer asks: its last sentences, up to this many characters. */
const ASKED_CHARS = 300;

/**
 * What a message longer than a search query asks: its last question and what follows it (where the question
 * stands after a long preamble), else its last sentences, up to ASKED_CHARS; a message within the limit is
 * asked whole. The offline answerer
 * searches and reads with this; a model writes its own queries, fitted to the limit by the tool wrapper.
 */
export function askedPart(message: string): string {
  const q = message.trim();
  if (q.length <= MAX_QUERY_CHARS) return q;
  const sentences = splitSentences(q);
  let out = "";
  for (let i = sentences.length - 1; i >= 0; i--) {
    const next = out ? `${sentences[i].text} ${out}` : sentences[i].text;
    if (out && next.length > ASKED_CHARS) break;
    out = next;
    // The last question and what follows it.
    if (/[?？]\s*$/.test(sentences[i].text)) break;
  }
  return out.length > MAX_QUERY_CHARS ? out.slice(-MAX_QUERY_CHARS) : out;
}
