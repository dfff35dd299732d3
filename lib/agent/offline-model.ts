/**
 * The embedded answerer used when no OPENAI_API_KEY is configured: an AI SDK language model, so it runs
 * through the very same streamText tool loop (and the same MCP tools) as a real model.
 *
 * Step 1: it calls `search_knowledge` with the user's question.
 * Step 2: it reads the tool result from the prompt (the `[n] title\ntext` blocks the chat's tool
 * wrapper writes) and answers with the most relevant sentences, each followed by its `[n]`,
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
import { parseResultBlocks } from "./citations";
import { hasCjk, pickSentences } from "./extractive";

export const OFFLINE_MODEL_ID = "offline-extractive";
export const SEARCH_TOOL = "search_knowledge";

export const OFFLINE_TEXT = {
  en: {
    intro: "From the knowledge base:",
    notFound: "The knowledge base does not contain an answer to this question.",
  },
  zh: {
    intro: "知识库中的相关内容：",
    notFound: "知识库中没有找到这个问题的答案。",
  },
};

/** Whether an answer is the offline answerer's "not in the knowledge base" reply. */
export function isRefusal(text: string): boolean {
  const t = text.trim();
  return t === "" || t === OFFLINE_TEXT.en.notFound || t === OFFLINE_TEXT.zh.notFound;
}

type Plan =
  | { kind: "search"; query: string }
  | { kind: "answer"; text: string };

function textOf(parts: readonly { type: string; text?: string }[]): string {
  return parts
    .filter((p) => p.type === "text")
    .map((p) => p.text ?? "")
    .join("\n")
    .trim();
}

/** The tool results that came back in the current turn (after the last user message). */
function currentTurn(prompt: LanguageModelV4Prompt): { question: string; results: string[] } {
  let lastUser = -1;
  prompt.forEach((m, i) => {
    if (m.role === "user") lastUser = i;
  });
  const question = lastUser >= 0 ? textOf(prompt[lastUser].content as { type: string; text?: string }[]) : "";
  const results: string[] = [];
  for (const m of prompt.slice(lastUser + 1)) {
    if (m.role !== "tool") continue;
    for (const part of m.content) {
      if (part.type !== "tool-result" || part.toolName !== SEARCH_TOOL) continue;
      const out = part.output;
      if (out.type === "text") results.push(out.value);
      else if (out.type === "content") results.push(textOf(out.value as { type: string; text?: string }[]));
      else if (out.type === "json") results.push(JSON.stringify(out.value));
    }
  }
  return { question, results };
}

export function planOfflineStep(options: Pick<LanguageModelV4CallOptions, "prompt" | "tools" | "toolChoice">): Plan {
  const { question, results } = currentTurn(options.prompt);
  const canSearch =
    options.toolChoice?.type !== "none" && (options.tools ?? []).some((t) => t.type === "function" && t.name === SEARCH_TOOL);
  if (results.length === 0 && canSearch && question) return { kind: "search", query: question };
  return { kind: "answer", text: writeAnswer(question, results) };
}

export function writeAnswer(question: string, toolResults: readonly string[]): string {
  const t = hasCjk(question) ? OFFLINE_TEXT.zh : OFFLINE_TEXT.en;
  const passages = toolResults.flatMap(parseResultBlocks).map((b) => ({ n: b.n, context: b.title, text: b.text }));
  const picked = pickSentences(question, passages);
  if (picked.length === 0) return t.notFound;
  return `${t.intro}\n\n${picked.map((p) => `- ${p.text} [${p.n}]`).join("\n")}`;
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
    return {
      content: [
        {
          type: "tool-call",
          toolCallId: `offline-call-${++callCounter}`,
          toolName: SEARCH_TOOL,
          input: JSON.stringify({ query: plan.query, top_k: 5 }),
        },
      ],
      finishReason: finish("tool-calls"),
    };
  }
  return { content: [{ type: "text", text: plan.text }], finishReason: finish("stop") };
}

/** Splits text into small deltas (words, or a few CJK characters) so the answer streams like a model's. */
function deltas(text: string): string[] {
  return text.match(/\s*[^\s\p{Script=Han}]+\s*|[\p{Script=Han}]{1,4}|\s+/gu) ?? [text];
}

export function createOfflineModel(): LanguageModelV4 {
  return {
    specificationVersion: "v4",
    provider: "offline",
    modelId: OFFLINE_MODEL_ID,
    supportedUrls: {},
    async doGenerate(options) {
      const { content, finishReason } = toContent(planOfflineStep(options));
      return { content, finishReason, usage: USAGE, warnings: [] };
    },
    async doStream(options) {
      const { content, finishReason } = toContent(planOfflineStep(options));
      const parts: LanguageModelV4StreamPart[] = [{ type: "stream-start", warnings: [] }];
      for (const c of content) {
        if (c.type === "text") {
          const id = `offline-text-${++callCounter}`;
          parts.push({ type: "text-start", id });
          for (const delta of deltas(c.text)) parts.push({ type: "text-delta", id, delta });
          parts.push({ type: "text-end", id });
        } else if (c.type === "tool-call") {
          parts.push({ type: "tool-input-start", id: c.toolCallId, toolName: c.toolName });
          parts.push({ type: "tool-input-delta", id: c.toolCallId, delta: c.input });
          parts.push({ type: "tool-input-end", id: c.toolCallId });
          parts.push(c);
        }
      }
      parts.push({ type: "finish", usage: USAGE, finishReason });
      const stream = new ReadableStream<LanguageModelV4StreamPart>({
        start(controller) {
          for (const p of parts) controller.enqueue(p);
          controller.close();
        },
      });
      return { stream };
    },
  };
}
