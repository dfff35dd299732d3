/**
 * The model path's decomposition step, before the tool loop: a question that may have several parts
 * (see mayHaveParts) is split by the model into 2–4 self-contained sub-questions, each searched on its
 * own (in parallel) and shown in the UI as its own search. Bounded: one short call without tools, a
 * time limit, and any failure or odd reply leaves the question whole.
 */
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { generateText } from "ai";
import { MAX_PARTS, mayHaveParts } from "./decompose";

export const DECOMPOSE_INSTRUCTIONS = `You split questions for a search engine. If the user's message asks several distinct things, write each as a self-contained question, one per line, at most ${MAX_PARTS}, in the language of the message, with nothing else. If it asks one thing, write the message unchanged on one line.`;

const DECOMPOSE_TIMEOUT_MS = 15_000;

/** Sub-questions of `question`, or `[question]` when it is simple, or when the model fails or rambles. */
export async function decomposeWithModel(model: LanguageModelV4, question: string, signal?: AbortSignal): Promise<string[]> {
  if (!mayHaveParts(question)) return [question];
  try {
    const timeout = AbortSignal.timeout(DECOMPOSE_TIMEOUT_MS);
    const { text } = await generateText({
      model,
      instructions: DECOMPOSE_INSTRUCTIONS,
      prompt: question,
      maxOutputTokens: 300,
      maxRetries: 0,
      abortSignal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    return parseParts(text, question);
  } catch (err) {
    if (signal?.aborted) throw err;
    console.error("[chat] decomposition step failed; searching the question whole:", err instanceof Error ? err.message : err);
    return [question];
  }
}

export function parseParts(text: string, question: string): string[] {
  const lines = text
    .split("\n")
    .map((l) => l.replace(/^\s*(?:[-*•]|\d+[.)、])\s*/, "").trim())
    .filter(Boolean);
  if (lines.length < 2 || lines.length > MAX_PARTS || lines.some((l) => l.length > 300)) return [question];
  return [...new Set(lines)];
}
