/**
 * Follow-up suggestions after an answer: two or three questions the turn's retrieved passages answer.
 * Offline they are built from those passages (a section heading, an FAQ question, a question the passage
 * itself asks and answers, or a name it mentions that the question did not), so each one leads back to the
 * passage it came from; with a model, the model writes them from the same passages. In the conversation's
 * language. `npm run eval -- --follow-ups` measures how often asking one retrieves and answers from its passage.
 */
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { generateText } from "ai";
import { HEADING_SEPARATOR } from "@/lib/chunk/heading";
import { hasCjk } from "@/lib/text/cjk";
import { endsClause, sentenceRanges } from "@/lib/text/sentences";
import { STOP_WORDS } from "@/lib/tokenize";
import { taggedWords } from "@/lib/tokenize/segment";
import { citedNumbers, type RetrievedChunk } from "./citations";
import type { FollowUp } from "./protocol";

type Passage = RetrievedChunk & { n: number };
type Lang = "en" | "zh";

const MAX_FOLLOW_UPS = 3;
/** Candidates built before the check that each leads back to its passage (verifyFollowUps). */
const MAX_CANDIDATES = 6;
/** A suggestion stands when searching it returns its passage among the first few (the answerer quotes those first). */
const VERIFY_RANK = 2;

const QUESTION_HEADING = /[?？]$|^(how|what|which|who|whom|why|when|where|can|could|do|does|did|is|are|should|will|may)\b/i;
const GENERIC =
  /^(introduction|overview|summary|contents|table of contents|about|faq|abstract|references|简介|概述|目录|前言|总则|附录|摘要)$/i;

const fold = (s: string) => s.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();

/** The conversation's language: the question's script, else the UI's. */
function conversationLanguage(question: string, locale?: string): Lang {
  if (hasCjk(question)) return "zh";
  return /[A-Za-z]/.test(question) ? "en" : locale === "zh" ? "zh" : "en";
}

/** A short form of a document title to name it in a question (long paper titles cut at a word). */
function shortTitle(title: string): string {
  const t = title.replace(/\.[a-z0-9]{1,5}$/i, "").trim();
  if (hasCjk(t)) return Array.from(t).length > 20 ? `${Array.from(t).slice(0, 20).join("")}` : t;
  const words = t.split(/\s+/);
  return words.length > 7 ? words.slice(0, 7).join(" ") : t;
}

function aboutQuestion(title: string, topic: string, lang: Lang): string {
  const doc = shortTitle(title);
  const same = !doc || fold(doc) === fold(topic) || fold(doc).includes(fold(topic));
  if (lang === "zh") return same ? `介绍一下${topic}` : `介绍一下${doc}的${topic}`;
  return same ? `Tell me about ${topic}` : `What does ${doc} say about ${topic}?`;
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
  if (!leaf || Array.from(leaf).length < 2 || leaf.length > 80 || GENERIC.test(leaf)) return null;
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
    const startsSentence = before === "" || endsClause(before) || /[#>*-]$/.test(before);
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

/**
 * Up to three questions, each answered by one of the retrieved passages: the passages the answer did not
 * cite first (what else there is to learn), then the cited ones; never two from one passage, never one
 * that repeats the question.
 */
function offlineFollowUps(
  question: string,
  answer: string,
  passages: readonly Passage[],
  locale?: string,
  max = MAX_FOLLOW_UPS,
): FollowUp[] {
  const lang = conversationLanguage(question, locale);
  const cited = new Set(citedNumbers(answer));
  const ordered = [...passages].sort((a, b) => Number(cited.has(a.n)) - Number(cited.has(b.n)) || b.score - a.score);
  const seen = fold(`${question}`);
  const out: FollowUp[] = [];
  const taken = new Set<string>([fold(question)]);
  const add = (q: string, p: Passage) => {
    const key = fold(q);
    if (taken.has(key) || out.length >= max) return false;
    taken.add(key);
    out.push({ question: q, from: p.chunk_id });
    return true;
  };
  const usedTopics = new Set<string>();
  for (const p of ordered) {
    if (out.length >= max) break;
    const section = sectionOf(p);
    if (section && QUESTION_HEADING.test(section) && hasCjk(section) === (lang === "zh")) {
      if (add(/[?？]$/.test(section) ? section : `${section}?`, p)) continue;
    }
    if (section && isNew(section, seen) && !usedTopics.has(fold(section))) {
      usedTopics.add(fold(section));
      if (add(aboutQuestion(p.document.title, section, lang), p)) continue;
    }
    const asked = askedQuestion(p.text);
    if (asked && hasCjk(asked) === (lang === "zh") && isNew(asked, seen)) {
      if (add(asked, p)) continue;
    }
    const title = fold(p.document.title);
    // A name the title holds ("oil crisis" in "1973 oil crisis") asks about the whole document, not this passage.
    const name = namesIn(p, passages, lang).find((n) => isNew(n, seen) && !usedTopics.has(fold(n)) && !title.includes(fold(n)));
    if (name) {
      usedTopics.add(fold(name));
      add(aboutQuestion(p.document.title, name, lang), p);
    }
  }
  return out;
}

const FOLLOW_UP_TIMEOUT_MS = 15_000;

/**
 * Offline suggestions checked against the library: each candidate is searched, and only those whose search
 * returns the passage they were built from near the top are kept (the first MAX_FOLLOW_UPS of them).
 */
export async function verifiedOfflineFollowUps(
  question: string,
  answer: string,
  passages: readonly Passage[],
  search: (query: string) => Promise<readonly { chunk_id: string }[] | null>,
  locale?: string,
  max = MAX_FOLLOW_UPS,
): Promise<FollowUp[]> {
  const candidates = offlineFollowUps(question, answer, passages, locale, Math.max(MAX_CANDIDATES, 2 * max));
  const kept = await Promise.all(
    candidates.map(async (c) => {
      try {
        const found = await search(c.question);
        return !!found?.slice(0, VERIFY_RANK).some((r) => r.chunk_id === c.from);
      } catch {
        return false;
      }
    }),
  );
  return candidates.filter((_, i) => kept[i]).slice(0, max);
}

const FOLLOW_UP_INSTRUCTIONS = `You suggest follow-up questions for a knowledge-base chat.
Write 3 short questions the user might ask next, each answered by the passages below, in the language of the user's question.
One question per line, no numbering, nothing else.`;

/** The model writes the suggestions from the turn's passages; offline ones stand in when it fails or writes too few. */
export async function modelFollowUps(
  model: LanguageModelV4,
  question: string,
  answer: string,
  passages: readonly Passage[],
  signal?: AbortSignal,
): Promise<FollowUp[]> {
  const fallback = () => offlineFollowUps(question, answer, passages);
  if (passages.length === 0) return [];
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
    const unique = [...new Set(lines)].slice(0, MAX_FOLLOW_UPS);
    return unique.length >= 2 ? unique.map((q) => ({ question: q })) : fallback();
  } catch (err) {
    if (signal?.aborted) return [];
    console.error("[chat] follow-up suggestions from the model failed:", err instanceof Error ? err.message : err);
    return fallback();
  }
}
