/**
 * The embedded answerer used when no OPENAI_API_KEY is configured: an AI SDK language model, so it runs
 * through the very same streamText tool loop (and the same MCP tools) as a real model.
 *
 * Step 1: it calls `search_knowledge` with the user's question.
 * Step 2: it reads the search results from the prompt (the structured results the chat's tool wrapper
 * puts beside the text a model reads, see lib/agent/tools.ts) and answers with the most relevant sentences, each followed by its `[n]`,
 * or says plainly that the knowledge base does not contain the answer.
 */
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from "@ai-sdk/provider";
import { wholeSentences } from "@/lib/retrieve/context";
import { fitQuery } from "@/lib/retrieve/limits";
import { hasCjk } from "@/lib/text/cjk";
import { sentenceEnds, sentenceRanges } from "@/lib/text/sentences";
import { TOOL } from "@/lib/tools/names";
import type { SearchResult } from "@/lib/tools/search-result";
import { ANSWER_TUNING, type Expected } from "./answer";
import { answerPart, type PartAnswer, type Quote } from "./answer-quotes";
import { questionTerms, termShare } from "./answer-terms";
import { answerType } from "./answer-type";
import { passagePlace } from "./citations";
import { askedPart, followUpQuery, isEllipsis, isFollowUp, splitQuestion } from "./decompose";
import { aboutAnotherEntity } from "./entities";
import type { Passage } from "./extractive";
import { resultsOf } from "./tools";

export const OFFLINE_MODEL_ID = "offline-extractive";
const SEARCH_TOOL = TOOL.searchKnowledge;

export const OFFLINE_TEXT = {
  en: {
    intro: "From the knowledge base:",
    closest: "The closest passage in your documents:",
    notFound: "The knowledge base does not contain an answer to this question.",
    partNotFound: "The knowledge base does not cover this part.",
    noOther: "No other passage in your documents answers this; the answer is the same as before.",
    scopedNotFound: "The selected sources do not contain an answer to this question.",
    scopedPartNotFound: "The selected sources do not cover this part.",
  },
  zh: {
    intro: "知识库中的相关内容：",
    closest: "知识库中最接近的段落：",
    notFound: "知识库中没有找到这个问题的答案。",
    partNotFound: "知识库中没有找到这部分的答案。",
    noOther: "文档中没有其他段落回答这个问题，回答与之前相同。",
    scopedNotFound: "所选来源中没有找到这个问题的答案。",
    scopedPartNotFound: "所选来源中没有找到这部分的答案。",
  },
};

/** Passages asked for per search. */
export const SEARCH_TOP_K = 5;

/** Whether an answer is the offline answerer's "not in the knowledge base" reply. */
export function isRefusal(text: string): boolean {
  const t = text.trim();
  return t === "" || [OFFLINE_TEXT.en, OFFLINE_TEXT.zh].some((w) => t === w.notFound || t === w.scopedNotFound);
}

export type Plan = { kind: "search"; queries: string[] } | { kind: "answer"; text: string };

function textOf(parts: readonly { type: string; text?: string }[] | string): string {
  if (typeof parts === "string") return parts.trim();
  return parts
    .filter((p) => p.type === "text")
    .map((p) => p.text ?? "")
    .join("\n")
    .trim();
}

/** One search of the current turn: what was asked and the passages it returned. */
export interface TurnSearch {
  query: string;
  passages: Passage[];
}

/** The question, the previous question, and the searches made in the current turn (after the last user message). */
export function readTurn(prompt: LanguageModelV4Prompt): { question: string; previous?: string; searches: TurnSearch[] } {
  const users = prompt.flatMap((m, i) => (m.role === "user" ? [i] : []));
  const lastUser = users.at(-1) ?? -1;
  const question = lastUser >= 0 ? textOf(prompt[lastUser].content as { type: string; text?: string }[]) : "";
  const prevIdx = users.at(-2);
  const previous = prevIdx !== undefined ? textOf(prompt[prevIdx].content as { type: string; text?: string }[]) : undefined;
  const queries = new Map<string, string>();
  const searches: TurnSearch[] = [];
  for (const m of prompt.slice(lastUser + 1)) {
    if (m.role === "assistant") {
      for (const part of m.content) {
        if (part.type !== "tool-call" || part.toolName !== SEARCH_TOOL) continue;
        const input = (typeof part.input === "string" ? safeJson(part.input) : part.input) as { query?: unknown } | undefined;
        queries.set(part.toolCallId, typeof input?.query === "string" ? input.query : question);
      }
    }
    if (m.role !== "tool") continue;
    for (const part of m.content) {
      if (part.type !== "tool-result" || part.toolName !== SEARCH_TOOL) continue;
      searches.push({ query: queries.get(part.toolCallId) ?? question, passages: resultsOf(part.output).map(toPassage) });
    }
  }
  return { question, previous, searches };
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}

function planOfflineStep(
  options: Pick<LanguageModelV4CallOptions, "prompt" | "tools" | "toolChoice">,
  avoid: readonly string[] = [],
  scoped = false,
): Plan {
  const turn = readTurn(options.prompt);
  // A message longer than a search query is asked by its end (where the question stands).
  const question = askedPart(turn.question);
  const previous = turn.previous === undefined ? undefined : askedPart(turn.previous);
  const searches = turn.searches;
  const canSearch =
    options.toolChoice?.type !== "none" && (options.tools ?? []).some((t) => t.type === "function" && t.name === SEARCH_TOOL);
  if (searches.length === 0 && canSearch && question) {
    const parts = splitQuestion(question);
    return { kind: "search", queries: parts.length > 1 ? parts : [followUpQuery(question, previous)] };
  }
  // A follow-up that turned out to name a subject of its own: searched again alone, and answered from that search.
  const followUp = previous !== undefined && searches.length === 1 && searches[0].query !== question && isFollowUp(question);
  if (canSearch && followUp && topicShift(question, previous, searches[0].passages))
    return { kind: "search", queries: [fitQuery(question)] };
  const own = searches.length === 2 && searches[1].query === fitQuery(question) && previous !== undefined && isFollowUp(question);
  const from = own ? [searches[1]] : searches;
  const context = own ? undefined : previous;
  const said = quotedSentences(avoid);
  // Regenerate: the next-best sentences, leaving out what the earlier versions quoted; when that leaves
  // nothing, leaving out one of them at a time; the same answer only when nothing else is found.
  const before = new Set(avoid.map((a) => quotedSentences([a]).join("\n")));
  for (const leaveOut of said.length ? [said, ...said.map((q) => [q])] : []) {
    const text = writeAnswer(
      question,
      from.map((s) => ({ ...s, passages: s.passages.map((p) => without(p, leaveOut)) })),
      context,
      scoped,
    );
    if (!isRefusal(text) && !before.has(quotedSentences([text]).join("\n"))) return { kind: "answer", text };
  }
  const text = writeAnswer(question, from, context, scoped);
  // Regenerate found nothing new: it says so rather than repeating the answer as if it were another.
  if (said.length > 0 && before.has(quotedSentences([text]).join("\n"))) {
    return { kind: "answer", text: `${(hasCjk(question) ? OFFLINE_TEXT.zh : OFFLINE_TEXT.en).noOther}\n\n${text}` };
  }
  return { kind: "answer", text };
}

/**
 * Whether a follow-up ("What about the VPN policy?") leaves the previous question's subject: it is not an
 * ellipsis, and nothing found for it (searched with the previous question) is about its own words together
 * with the previous question's.
 */
function topicShift(question: string, previous: string, passages: readonly Passage[]): boolean {
  if (isEllipsis(question)) return false;
  const own = questionTerms(question);
  if (own.length === 0) return false;
  const before = questionTerms(previous).filter((t) => !own.some((o) => o.key === t.key));
  return !passages.some((p) => termShare(own, p) >= 0.5 && termShare(before, p) >= 0.5);
}

/** The quoted sentences of earlier offline answers (their "- sentence [n]" bullets). */
function quotedSentences(answers: readonly string[]): string[] {
  return answers.flatMap((a) =>
    a
      .split("\n")
      .map((line) => line.match(/^\s*-\s+(.*?)(?:\s*\[\d+\])*\s*$/)?.[1]?.trim() ?? "")
      .filter((q) => q.length > 0),
  );
}

const fold = (s: string) => s.replace(/\s+/g, " ").trim();
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A passage without the sentences already quoted (matched across any whitespace; headings and lines kept). */
function without(p: Passage, said: readonly string[]): Passage {
  let text = p.text;
  for (const quote of said) {
    const folded = fold(quote);
    for (const sentence of sentenceRanges(folded).map(([s, e]) => folded.slice(s, e).trim())) {
      if (sentence.length > 1) text = text.replace(new RegExp(escapeRegExp(sentence).replace(/ /g, "\\s+"), "g"), "");
    }
  }
  return { ...p, text };
}

/** A search result as a passage to quote: its citation number, where it is, and its text. */
export function toPassage(r: SearchResult): Passage {
  return { n: r.ref, context: passagePlace(r), text: wholeSentences(r.text, r.context_before, r.context_after) };
}

/** What kind of answer the question asks for, if its question word says (answer-type.ts). */
export function expectation(question: string): Expected | undefined {
  const type = answerType(question);
  return type ? { type, question } : undefined;
}

function bullets(quotes: readonly Quote[]): string {
  return quotes.map((q) => `- ${q.text} [${q.n}]`).join("\n");
}

/**
 * The answer from the turn's searches. One search: the sentences that answer the question (a follow-up
 * also weighs the previous question's words, at half weight). Several searches (a multi-part question):
 * one section per part, each answered from its own search.
 */
function writeAnswer(question: string, list: readonly TurnSearch[], previous?: string, scoped = false): string {
  const words = hasCjk(question) ? OFFLINE_TEXT.zh : OFFLINE_TEXT.en;
  // Limited to picked documents, a refusal names them: the rest of the library was not searched.
  const t = scoped ? { ...words, notFound: words.scopedNotFound, partNotFound: words.scopedPartNotFound } : words;
  if (list.length > 1 && new Set(list.map((s) => s.query)).size > 1) {
    const sections = list.map((s) => ({
      query: s.query,
      answer: aboutAnotherEntity(s.query, s.passages)
        ? ({ kind: "none" } as const)
        : answerPart(questionTerms(s.query), s.passages, ANSWER_TUNING, expectation(s.query)),
    }));
    if (sections.every((s) => s.answer.kind === "none")) return t.notFound;
    return sections
      .map(
        ({ query, answer }) =>
          `**${query}**\n${answer.kind === "none" ? t.partNotFound : `${answer.kind === "closest" ? `${t.closest}\n` : ""}${bullets(answer.quotes)}`}`,
      )
      .join("\n\n");
  }
  const terms = questionTerms(question);
  const retrieved = list.flatMap((s) => s.passages);
  let passages = retrieved;
  // The question names something the passages do not, while they name other things of its kind: they are about those.
  if (aboutAnotherEntity(question, passages)) return t.notFound;
  if (previous && isFollowUp(question)) {
    const keys = new Set(terms.map((x) => x.key));
    const before = questionTerms(previous, 0.5).filter((x) => !keys.has(x.key));
    const about = passages.filter((p) => termShare(before, p) >= 0.5);
    if (isEllipsis(question) && about.length > 0) {
      // No subject of its own: the previous question's. Only passages about it answer: with the follow-up's
      // words where they have them, else with the previous question's (what the documents say of the subject).
      passages = about;
      const answer = answerPart(terms, passages, ANSWER_TUNING, expectation(question));
      if (answer.kind !== "none") return reply(answer, t);
      // What the follow-up asks about ("part-time staff") is in nothing retrieved: the documents do not say,
      // and quoting the subject again would only repeat the previous answer.
      if (terms.length > 0 && !retrieved.some((p) => termShare(terms, p) >= 0.5)) return t.notFound;
      const subject = before.map((x) => ({ ...x, boost: 1 }));
      return reply(answerPart(subject, passages, ANSWER_TUNING), t);
    }
    terms.push(...before);
  }
  return reply(answerPart(terms, passages, ANSWER_TUNING, expectation(question)), t);
}

function reply(answer: PartAnswer, t: (typeof OFFLINE_TEXT)["en"]): string {
  if (answer.kind === "none") return t.notFound;
  return `${answer.kind === "closest" ? t.closest : t.intro}\n\n${bullets(answer.quotes)}`;
}

const USAGE: LanguageModelV4Usage = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
};

function finish(unified: LanguageModelV4FinishReason["unified"]): LanguageModelV4FinishReason {
  return { unified, raw: unified };
}

let callCounter = 0;

function toContent(plan: Plan): { content: LanguageModelV4Content[]; finishReason: LanguageModelV4FinishReason } {
  if (plan.kind === "search") {
    // Several calls in one step run in parallel (one per part of a multi-part question).
    return {
      content: plan.queries.map((query) => ({
        type: "tool-call" as const,
        toolCallId: `offline-call-${++callCounter}`,
        toolName: SEARCH_TOOL,
        input: JSON.stringify({ query, top_k: SEARCH_TOP_K }),
      })),
      finishReason: finish("tool-calls"),
    };
  }
  return { content: [{ type: "text", text: plan.text }], finishReason: finish("stop") };
}

/** What follows a sentence end and streams with it: its citation markers and the spacing after them. */
const SENTENCE_TAIL = /(?:\s*\[\d+\])*[^\S\n]*\n*/y;

/**
 * Splits an answer into sentences (lib/text/sentences), each with its trailing citation markers and spacing:
 * the unit the offline answerer streams in, like a model's output arriving sentence by sentence.
 */
export function sentenceDeltas(text: string): string[] {
  const out: string[] = [];
  let from = 0;
  for (const end of sentenceEnds(text)) {
    if (end <= from) continue;
    SENTENCE_TAIL.lastIndex = end;
    SENTENCE_TAIL.test(text);
    out.push(text.slice(from, SENTENCE_TAIL.lastIndex));
    from = SENTENCE_TAIL.lastIndex;
  }
  if (from < text.length) out.push(text.slice(from));
  return out.length ? out : [text];
}

/** Pause between streamed sentences, so a browser shows them arriving one by one. */
const SENTENCE_PAUSE_MS = 20;

/** `scoped`: the conversation is limited to picked documents (its refusals name "the selected sources"). */
export function createOfflineModel({ avoid, scoped }: { avoid?: readonly string[]; scoped?: boolean } = {}): LanguageModelV4 {
  return createPlannedModel(OFFLINE_MODEL_ID, (options) => planOfflineStep(options, avoid, scoped));
}

/**
 * A model whose every step is planned by rules: search (one tool call per query, in parallel) or answer
 * (streamed sentence by sentence). The offline answerer is one; the eval's fake miscite model another.
 */
export function createPlannedModel(
  modelId: string,
  plan: (options: Pick<LanguageModelV4CallOptions, "prompt" | "tools" | "toolChoice">) => Plan,
): LanguageModelV4 {
  return {
    specificationVersion: "v4",
    provider: "offline",
    modelId,
    supportedUrls: {},
    async doGenerate(options) {
      const { content, finishReason } = toContent(plan(options));
      return { content, finishReason, usage: USAGE, warnings: [] };
    },
    async doStream(options) {
      const { content, finishReason } = toContent(plan(options));
      const parts: LanguageModelV4StreamPart[] = [{ type: "stream-start", warnings: [] }];
      for (const c of content) {
        if (c.type === "text") {
          const id = `offline-text-${++callCounter}`;
          parts.push({ type: "text-start", id });
          for (const delta of sentenceDeltas(c.text)) parts.push({ type: "text-delta", id, delta });
          parts.push({ type: "text-end", id });
        } else if (c.type === "tool-call") {
          parts.push({ type: "tool-input-start", id: c.toolCallId, toolName: c.toolName });
          parts.push({ type: "tool-input-delta", id: c.toolCallId, delta: c.input });
          parts.push({ type: "tool-input-end", id: c.toolCallId });
          parts.push(c);
        }
      }
      parts.push({ type: "finish", usage: USAGE, finishReason });
      let i = 0;
      const abort = options.abortSignal;
      const stream = new ReadableStream<LanguageModelV4StreamPart>({
        async pull(controller) {
          const p = parts[i++];
          if (!p || abort?.aborted) return controller.close();
          if (p.type === "text-delta" && parts[i - 2]?.type === "text-delta") await new Promise((r) => setTimeout(r, SENTENCE_PAUSE_MS));
          controller.enqueue(p);
          if (i === parts.length) controller.close();
        },
      });
      return { stream };
    },
  };
}
