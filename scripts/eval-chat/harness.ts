import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { ModelMessage } from "ai";
import { runChat } from "@/lib/agent/chat";
import { stripCitations } from "@/lib/agent/citations";
import { splitSentences } from "@/lib/agent/extractive";
import { isRefusal, OFFLINE_TEXT } from "@/lib/agent/offline-model";
import type { AppConfig } from "@/lib/config";
import type { EvalQuestion } from "@/lib/retrieve/eval-metrics";
import type { Store } from "@/lib/store";
import { type LocalMcp, startLocalMcp } from "../local-mcp";

/** The app's MCP endpoint for `store` on a loopback port (0: any free port). */
export async function serveMcp(store: Store): Promise<LocalMcp> {
  return startLocalMcp({ store, auth: { requireToken: false, rateLimitPerMinute: 0, allowedOrigins: [] } });
}

export const OFFLINE_CHAT: AppConfig["chat"] = {
  apiKey: undefined,
  baseURL: undefined,
  model: "offline",
  models: [],
  maxSteps: 6,
  historyTurns: 8,
  historyChars: 12000,
  mcpUrl: undefined,
};

export interface ChatTurn {
  text: string;
  /** Every UI message stream event, in order. */
  events: Record<string, unknown>[];
  /** The queries of the search tool calls, in order. */
  queries: string[];
  citations: number;
  errors: string[];
}

/** One chat turn through runChat (a lone string is one user message), read back from its UI message stream. */
export async function askChat(
  mcpUrl: string,
  conversation: ModelMessage[] | string,
  config = OFFLINE_CHAT,
  model?: LanguageModelV4,
  locale?: "en" | "zh",
): Promise<ChatTurn> {
  const messages: ModelMessage[] = typeof conversation === "string" ? [{ role: "user", content: conversation }] : conversation;
  const res = await runChat({ config, mcpUrl, messages, model, locale });
  if (!res.ok) return { text: "", events: [], queries: [], citations: 0, errors: [await res.text()] };
  const body = await res.text();
  const events = body
    .split("\n\n")
    .map((e) => e.replace(/^data: /, "").trim())
    .filter((d) => d && d !== "[DONE]")
    .map((d) => JSON.parse(d) as Record<string, unknown>);
  const text = events
    .filter((e) => e.type === "text-delta")
    .map((e) => e.delta as string)
    .join("");
  const queries = events
    .filter((e) => e.type === "tool-input-available")
    .map((e) => (e.input as { query?: string } | undefined)?.query ?? "");
  const citations =
    (events.filter((e) => e.type === "data-citations").at(-1)?.data as { citations?: unknown[] } | undefined)?.citations?.length ?? 0;
  const errors = events.filter((e) => e.type === "error").map((e) => String(e.errorText));
  return { text, events, queries, citations, errors };
}

const fold = (s: string) => s.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();

export function answerContained(answer: string, references: readonly string[]): boolean {
  const a = fold(stripCitations(answer).replace(/\*\*/g, ""));
  return references.some((r) => fold(r).length > 0 && a.includes(fold(r)));
}

/**
 * An answer's sentences as a reader meets them: markers removed, lines that only introduce what follows
 * ("From the knowledge base:", ending in a colon and citing nothing) and part headings ("**question**") left out.
 */
function answerSentences(text: string): string[] {
  const body = text
    .split("\n")
    .filter((l) => !(/[:：]\s*$/.test(l) && !/\[\d+\]/.test(l)) && !/^\s*\*\*.*\*\*\s*$/.test(l))
    .map(stripCitations)
    .join("\n");
  return splitSentences(body).map((s) => s.text);
}

function median(xs: readonly number[]): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function referencesOf(q: EvalQuestion): string[] {
  return [...new Set([q.answer, ...(q.answers ?? [])].filter((s) => typeof s === "string" && s.trim()))];
}

/** The questions the acceptance rule measures: reference answer of at most `maxChars` characters. */
export function shortAnswerQuestions(qs: readonly EvalQuestion[], maxChars = 30): EvalQuestion[] {
  return qs.filter((q) => typeof q.answer === "string" && q.answer.trim().length > 0 && q.answer.length <= maxChars);
}

interface ChatEvalItem {
  id: string;
  question: string;
  answer: string;
  text: string;
  contained: boolean;
  /** The answer's first sentence contains the reference answer. */
  first: boolean;
  sentences: number;
  cited: boolean;
  refused: boolean;
  /** The offline answerer's "closest passage" reply: not a refusal, but no answer either. */
  closest: boolean;
}

export interface ChatEvalSummary {
  questions: number;
  contained: number;
  /** Answers whose first sentence contains the reference answer. */
  first: number;
  /** Median sentences per answer (refusals left out). */
  medianSentences: number;
  cited: number;
  refused: number;
  /** "Closest passage" replies (counted apart from clean refusals). */
  closest: number;
  items: ChatEvalItem[];
}

export async function evalChat(
  mcpUrl: string,
  questions: readonly EvalQuestion[],
  opts: { answerable?: boolean; onQuestion?: (done: number, total: number) => void } = {},
): Promise<ChatEvalSummary> {
  const items: ChatEvalItem[] = [];
  for (const [i, q] of questions.entries()) {
    const turn = await askChat(mcpUrl, [{ role: "user", content: q.question }]);
    if (turn.errors.length) throw new Error(`chat failed on ${q.id}: ${turn.errors.join("; ")}`);
    const sentences = answerSentences(turn.text);
    const answerable = opts.answerable !== false;
    items.push({
      id: q.id,
      question: q.question,
      answer: q.answer,
      text: turn.text,
      contained: answerable && answerContained(turn.text, referencesOf(q)),
      first: answerable && sentences.length > 0 && answerContained(sentences[0], referencesOf(q)),
      sentences: sentences.length,
      cited: /\[\d+\]/.test(turn.text),
      refused: isRefusal(turn.text),
      closest: [OFFLINE_TEXT.en.closest, OFFLINE_TEXT.zh.closest].some((c) => turn.text.trimStart().startsWith(c)),
    });
    opts.onQuestion?.(i + 1, questions.length);
  }
  const count = (f: (x: ChatEvalItem) => boolean) => items.filter(f).length;
  return {
    questions: items.length,
    contained: count((x) => x.contained),
    first: count((x) => x.first),
    medianSentences: median(items.filter((x) => !x.refused).map((x) => x.sentences)),
    cited: count((x) => x.cited),
    refused: count((x) => x.refused),
    closest: count((x) => x.closest),
    items,
  };
}
