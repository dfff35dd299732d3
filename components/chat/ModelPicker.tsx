"use client";

import { useCallback, useEffect, useState } from "react";
import { apiFetch } from "@/components/api";
import { type Messages, useMessages } from "@/components/i18n";
import type { ChatUIMessage } from "@/lib/agent/protocol";
import { answerModelOf } from "./checked-answer";
import { S } from "./share-strings";
import { fill } from "./strings";

const T = {
  en: { model: "Model" },
  zh: { model: "模型" },
} satisfies Messages;

/** The model that wrote the last answer of a conversation (its message metadata), if a model did. */
function lastModel(messages: readonly ChatUIMessage[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const meta = messages[i].metadata;
    if (messages[i].role === "assistant" && meta?.mode === "llm" && meta.model) return meta.model;
  }
  return undefined;
}

/**
 * The conversation's model: the one picked in it, else the one that wrote its last answer (an opened
 * conversation goes on with its model), else the default (undefined). `reset` on a new or opened conversation.
 */
export function useConversationModel(messages: readonly ChatUIMessage[]) {
  const [picked, setPicked] = useState<string | null>(null);
  const reset = useCallback(() => setPicked(null), []);
  return { model: picked ?? lastModel(messages), pick: setPicked, reset };
}

/** Which model answers in this conversation, when several are configured (CHAT_MODELS or the endpoint's list). */
export function ModelPicker({ value, onChange, disabled }: { value?: string; onChange: (model: string) => void; disabled?: boolean }) {
  const t = useMessages(T);
  const [choice, setChoice] = useState<{ default: string | null; models: string[] } | null>(null);
  useEffect(() => {
    let cancelled = false;
    apiFetch<{ default: string | null; models: string[] }>("/api/chat/models")
      .then((c) => !cancelled && setChoice(c))
      .catch(() => !cancelled && setChoice(null));
    return () => {
      cancelled = true;
    };
  }, []);
  if (!choice || choice.models.length < 2) return null;
  return (
    <label className="flex items-center gap-1 text-[11px] text-zinc-600 dark:text-zinc-400">
      <span>{t.model}</span>
      <select
        data-testid="model-picker"
        value={value ?? choice.default ?? choice.models[0]}
        disabled={disabled}
        onChange={(e) => onChange(e.target.value)}
        className="rounded border border-zinc-300 bg-white px-1 py-0.5 text-[11px] text-zinc-800 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-200"
      >
        {choice.models.map((m) => (
          <option key={m} value={m}>
            {m}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Which model wrote an answer, shown with it (stored in the message's metadata). */
export function AnswerModel({ m }: { m: ChatUIMessage }) {
  const s = useMessages(S);
  const model = answerModelOf(m);
  if (!model) return null;
  return (
    <span data-testid="answer-model" className="text-[11px] text-zinc-600 dark:text-zinc-400">
      {fill(s.writtenBy, { model })}
    </span>
  );
}
