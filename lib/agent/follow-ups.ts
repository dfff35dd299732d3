/**
 * Follow-up suggestions after an answer: two or three questions the library answers, about the question's own
 * topic. Offline they are built from the retrieved passages of the documents the answer cites (a section heading,
 * an FAQ question, a question the passage itself asks and answers, or a name it mentions that the question did
 * not), so each one leads back to the passage it came from; with a model, the model writes them from the same
 * passages. Both kinds are kept only when searching them returns a passage of those documents near the top; none
 * follow a refusal or an answer that cites nothing. In the UI's language (else the question's), never mixing scripts.
 * `npm run eval -- --follow-ups` measures how often asking one answers from its passage, and stays on topic.
 */
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { generateText } from "ai";
import { HEADING_SEPARATOR } from "@/lib/chunk/heading";
import { hasCjk } from "@/lib/text/cjk";
import { endsClause, sentenceRanges } from "@/lib/text/sentences";
import { STOP_WORDS } from "@/lib/tokenize";
import { taggedWords } from "@/lib/tokenize/segment";
import { citedNumbers, type RetrievedChunk } from "./citations";
import { isRefusal } from "./offline-model";
import type { FollowUp } from "./protocol";

type Passage = RetrievedChunk & { n: number };
type Lang = "en" | "zh";
/** A search for a suggestion: the chunks it returns, best first (null: no search tool). */
export type SuggestionSearch = (query: string) => Promise<readonly { chunk_id: string; document?: { id: string } }[] | null>;

const MAX_FOLLOW_UPS = 3;
/** Candidates built before the check that each leads back to its passage (verifyFollowUps). */
const MAX_CANDIDATES = 6;
/** Names of one passage asked about (a short document may be one passage, and still name several things). */
const NAMES_PER_PASSAGE = 3;
/** A suggestion stands when searching it returns its passage among the first few (the answerer quotes those first). */
const VERIFY_RANK = 2;

const QUESTION_HEADING = /[?？]$|^(how|what|which|who|whom|why|when|where|can|could|do|does|did|is|are|should|will|may)\b/i;
const GENERIC =
  /^(introduction|overview|summary|contents|table of contents|about|faq|abstract|references|简介|概述|目录|前言|总则|附录|摘要)$/i;

/** CSV and sheet records are grouped under "Rows 1–10" headings: no topic anyone asks about. */
const ROW_RANGE = /\brows?\s+\d+(\s*[–-]\s*\d+)?$/i;

const fold = (s: string) => s.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();

/** The suggestions' language: the UI's, else the question's script. */
function suggestionLanguage(question: string, locale?: string): Lang {
  if (locale === "zh" || locale === "en") return locale;
  return hasCjk(question) ? "zh" : "en";
}

/** Whether a suggestion is written in `lang` alone: no Chinese in an English one, Chinese in a Chinese one. */
function inLanguage(q: string, lang: Lang): boolean {
  return hasCjk(q) === (lang === "zh");
}

/** "Sick leave" reads "sick leave" inside a sentence; "Nimbus Cloud" and "SSO" keep their capitals. */
function inSentence(topic: string): string {
  const [first, ...rest] = topic.split(" ");
  const sentenceCase = /^[A-Z][a-z]+$/.test(first) && rest.every((w) => !/^[A-Z][a-z]/.test(w));
  return sentenceCase && rest.length ? `${first.toLowerCase()} ${rest.join(" ")}` : topic;
}

/** A question about a topic of the passage, as a person asks it (no document names, no template about a title). */
function aboutQuestion(topic: string, lang: Lang): string {
  return lang === "zh" ? `介绍一下${topic}` : `What should I know about ${inSentence(topic)}?`;
}

/** The section a passage sits in, when it is not the document itself or a generic one. */
function sectionOf(p: Passage): string | null {
  const leaf = p.heading
    .split(HEADING_SEPARATOR)
    .map((s) => s.trim())
    .filter(Boolean)
    .at(-1)
    ?.replace(/^[\d.、)\s]+/, "")
    .replace(/[:：]$/, "")
    .trim();
  if (!leaf || Array.from(leaf).length < 2 || leaf.length > 80 || GENERIC.test(leaf) || ROW_RANGE.test(leaf)) return null;
  // The document's own title (perhaps without its leading number) is no section.
  if (fold(p.document.title).includes(fold(leaf))) return null;
  return leaf;
}

/** A question the passage asks and then answers itself (FAQ pages, Q&A sections). */
function askedQuestion(text: string): string | null {
  for (const [start, end] of sentenceRanges(text)) {
    const q = text
      .slice(start, end)
      .replace(/^[\s>*#\-\d.、)]+/, "")
      .trim();
    // The answer must follow in the passage itself.
    if (/[?？]$/.test(q) && q.length >= 6 && q.length <= 120 && text.slice(end).trim().length >= 20) return q;
  }
  return null;
}

/** A name does not run on over a line break (a title line, then the paragraph's first word). */
const NAME_EN =
  /\b(?:[A-Z][\p{L}\d'’-]*[\p{L}\d]|[A-Z]{2,}\d*)(?:[ \t]+(?:(?:of|the|and|de|for)[ \t]+)?(?:[A-Z][\p{L}\d'’-]*[\p{L}\d]|\d{2,4}))*/gu;
const ZH_NAME_TAGS = new Set(["nr", "ns", "nt", "nz", "nrt", "nrfg"]);
const MONTHS_AND_DAYS =
  /^(January|February|March|April|May|June|July|August|September|October|November|December|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)$/;

/** Candidate names of an English passage: capitalised runs not merely starting a sentence (or acronyms). */
function englishNames(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(NAME_EN)) {
    const words = m[0].trim().split(/\s+/);
    // "The Apollo", "When the FCC": a function word that only starts the sentence is not part of the name.
    while (
      words.length > 1 &&
      (STOP_WORDS.has(words[0].toLowerCase()) || /^(When|After|Before|During|Although|While|Since)$/.test(words[0]))
    )
      words.shift();
    const name = words.join(" ");
    const single = !/\s/.test(name);
    const before = text.slice(0, m.index).trimEnd();
    // A line's first word starts a sentence too (the paragraph under a heading line).
    const startsLine = /\n[ \t]*$/.test(text.slice(0, m.index));
    const startsSentence = before === "" || startsLine || endsClause(before) || /[#>*-]$/.test(before);
    if (name.length < 3 || STOP_WORDS.has(name.toLowerCase()) || MONTHS_AND_DAYS.test(name)) continue;
    if (single && startsSentence && !/^[A-Z]{2,}|\d/.test(name)) continue;
    // A capitalised common word ("Additional", "Before") is written lower-case elsewhere in the text.
    if (single && !/^[A-Z]{2,}|\d/.test(name) && new RegExp(`\\b${name.toLowerCase()}\\b`).test(text)) continue;
    out.push(name);
  }
  return out;
}

/**
 * Names the passage mentions that the other retrieved passages do not (asking about one leads back to this
 * passage), several words before one; Chinese proper nouns before other nouns.
 */
function namesIn(p: Passage, others: readonly Passage[], lang: Lang): string[] {
  const text = p.text.slice(0, 1500);
  let names: string[];
  if (lang === "zh" || hasCjk(text)) {
    const tagged = taggedWords(text).filter((w) => Array.from(w.word).length >= 2 && hasCjk(w.word));
    const proper = tagged.filter((w) => ZH_NAME_TAGS.has(w.tag)).map((w) => w.word);
    const nouns = tagged.filter((w) => w.tag === "n" && Array.from(w.word).length >= 3).map((w) => w.word);
    names = [...new Set([...proper, ...nouns])];
  } else {
    names = [...new Set(englishNames(text))].sort((a, b) => b.split(/\s+/).length - a.split(/\s+/).length);
  }
  const elsewhere = (n: string) => others.filter((o) => o !== p && fold(o.text).includes(fold(n))).length;
  const single = (n: string) => Number(!/\s/.test(n) && !hasCjk(n));
  const counted = names.map((n, i) => ({ n, i, e: elsewhere(n), s: single(n) }));
  return counted.sort((a, b) => a.e - b.e || a.s - b.s || a.i - b.i).map((c) => c.n);
}

/** Whether `name` says something the question (or the answer) does not already say. */
function isNew(name: string, seen: string): boolean {
  const f = fold(name);
  if (seen.includes(f)) return false;
  return !f.split(/\s+/).every((w) => seen.includes(w));
}

/** A passage's candidate questions, best first: its question heading, its section, a question it asks, its names. */
function passageQuestions(p: Passage, passages: readonly Passage[], lang: Lang, seen: string, usedTopics: Set<string>): string[] {
  const out: string[] = [];
  const section = sectionOf(p);
  if (section && QUESTION_HEADING.test(section)) out.push(/[?？]$/.test(section) ? section : `${section}?`);
  else if (section && isNew(section, seen) && !usedTopics.has(fold(section))) {
    usedTopics.add(fold(section));
    out.push(aboutQuestion(section, lang));
  }
  const asked = askedQuestion(p.text);
  if (asked && isNew(asked, seen)) out.push(asked);
  const title = fold(p.document.title);
  // A name the title holds ("oil crisis" in "1973 oil crisis") asks about the whole document, not this passage.
  const names = namesIn(p, passages, lang)
    .filter((n) => isNew(n, seen) && !usedTopics.has(fold(n)) && !title.includes(fold(n)))
    .slice(0, NAMES_PER_PASSAGE);
  for (const name of names) {
    usedTopics.add(fold(name));
    out.push(aboutQuestion(name, lang));
  }
  return out.filter((q) => inLanguage(q, lang));
}

/**
 * Candidate questions, each built from one of `passages`: the passages the answer did not cite first (what else
 * there is to learn), then the cited ones, one question of each passage in turn; never one that repeats the
 * question (`seen`) or another candidate.
 */
function candidateQuestions(passages: readonly Passage[], lang: Lang, seen: string, cited: ReadonlySet<number>, max: number): FollowUp[] {
  const ordered = [...passages].sort((a, b) => Number(cited.has(a.n)) - Number(cited.has(b.n)) || b.score - a.score);
  const usedTopics = new Set<string>();
  const perPassage = ordered.map((p) => ({ p, qs: passageQuestions(p, passages, lang, seen, usedTopics) }));
  const out: FollowUp[] = [];
  const taken = new Set<string>([seen]);
  for (let round = 0; out.length < max && perPassage.some(({ qs }) => qs.length > round); round++) {
    for (const { p, qs } of perPassage) {
      const q = qs[round];
      if (!q || out.length >= max || taken.has(fold(q))) continue;
      taken.add(fold(q));
      out.push({ question: q, from: p.chunk_id });
    }
  }
  return out;
}

const FOLLOW_UP_TIMEOUT_MS = 15_000;

/** Whether searching `question` returns, near the top, one of the chunks `accept` takes (the answerability check). */
async function answeredBy(
  question: string,
  search: SuggestionSearch,
  accept: (r: { chunk_id: string; document?: { id: string } }) => boolean,
) {
  try {
    const found = await search(question);
    return found?.slice(0, VERIFY_RANK).find(accept) ?? null;
  } catch {
    return null;
  }
}

/**
 * Offline questions built from `passages`, checked against the library: each candidate is searched, and only
 * those whose search returns the passage they were built from near the top are kept (the first `max`). The
 * overview's questions are these.
 */
export async function verifiedQuestions(
  passages: readonly Passage[],
  lang: Lang,
  search: SuggestionSearch,
  max: number,
  opts: { seen?: string; cited?: ReadonlySet<number> } = {},
): Promise<FollowUp[]> {
  const candidates = candidateQuestions(passages, lang, fold(opts.seen ?? ""), opts.cited ?? new Set(), Math.max(MAX_CANDIDATES, 2 * max));
  const kept = await Promise.all(candidates.map((c) => answeredBy(c.question, search, (r) => r.chunk_id === c.from)));
  return candidates.filter((_, i) => kept[i]).slice(0, max);
}

/** The documents an answer cites: its suggestions stay on them. None after a refusal or an answer citing nothing. */
function topicDocuments(answer: string, passages: readonly Passage[]): Set<string> {
  if (isRefusal(answer)) return new Set();
  const cited = new Set(citedNumbers(answer));
  return new Set(passages.filter((p) => cited.has(p.n)).map((p) => p.document.id));
}

/**
 * Offline suggestions after an answer: questions built from the retrieved passages of the documents the answer
 * cites, kept only when searching them returns the passage they were built from near the top.
 */
export async function verifiedOfflineFollowUps(
  question: string,
  answer: string,
  passages: readonly Passage[],
  search: SuggestionSearch,
  locale?: string,
  max = MAX_FOLLOW_UPS,
): Promise<FollowUp[]> {
  const docs = topicDocuments(answer, passages);
  if (!docs.size) return [];
  const onTopic = passages.filter((p) => docs.has(p.document.id));
  return verifiedQuestions(onTopic, suggestionLanguage(question, locale), search, max, {
    seen: question,
    cited: new Set(citedNumbers(answer)),
  });
}

/**
 * Questions someone else wrote (the model), kept only when searching one returns, near the top, a chunk of the
 * documents `docs`: the library answers it, from the material it was written about.
 */
export async function answerableQuestions(
  questions: readonly string[],
  docs: ReadonlySet<string>,
  search: SuggestionSearch,
): Promise<FollowUp[]> {
  const found = await Promise.all(questions.map((q) => answeredBy(q, search, (r) => !!r.document && docs.has(r.document.id))));
  return questions.flatMap((question, i) => (found[i] ? [{ question, from: found[i].chunk_id }] : []));
}

const FOLLOW_UP_INSTRUCTIONS = `You suggest follow-up questions for a knowledge-base chat.
Write 3 short questions the user might ask next, each answered by the passages below, in the language of the user's question.
One question per line, no numbering, nothing else.`;

/**
 * The model writes the suggestions from the turn's passages, each kept only when the library answers it from the
 * documents the answer cites; the offline ones stand in when it fails or too few of its own pass.
 */
export async function modelFollowUps(
  model: LanguageModelV4,
  question: string,
  answer: string,
  passages: readonly Passage[],
  search: SuggestionSearch,
  signal?: AbortSignal,
  locale?: string,
): Promise<FollowUp[]> {
  const docs = topicDocuments(answer, passages);
  if (!docs.size) return [];
  const fallback = () => verifiedOfflineFollowUps(question, answer, passages, search, locale);
  try {
    const context = passages
      .slice(0, 6)
      .map((p) => `[${p.n}] ${p.document.title}${p.heading ? ` › ${p.heading}` : ""}\n${p.text.slice(0, 800)}`)
      .join("\n\n");
    const { text } = await generateText({
      model,
      instructions: FOLLOW_UP_INSTRUCTIONS,
      prompt: `Question: ${question}\n\nAnswer: ${answer.slice(0, 2000)}\n\nPassages:\n${context}`,
      maxOutputTokens: 300,
      maxRetries: 0,
      abortSignal: signal
        ? AbortSignal.any([signal, AbortSignal.timeout(FOLLOW_UP_TIMEOUT_MS)])
        : AbortSignal.timeout(FOLLOW_UP_TIMEOUT_MS),
    });
    const lines = text
      .split("\n")
      .map((l) => l.replace(/^\s*(?:[-*•]|\d+[.)、])\s*/, "").trim())
      .filter((l) => l.length >= 4 && l.length <= 200 && fold(l) !== fold(question));
    const kept = (await answerableQuestions([...new Set(lines)], docs, search)).slice(0, MAX_FOLLOW_UPS);
    return kept.length >= 2 ? kept : fallback();
  } catch (err) {
    if (signal?.aborted) return [];
    console.error("[chat] follow-up suggestions from the model failed:", err instanceof Error ? err.message : err);
    return fallback();
  }
}
