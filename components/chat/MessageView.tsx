"use client";

import { useMemo, useState } from "react";
import type { DynamicToolUIPart } from "ai";
import { citedNumbers } from "@/lib/agent/citations";
import type { Citation, ChatUIMessage } from "@/lib/agent/protocol";
import { FaqAnswerCard, PromoteToFaq } from "@/components/faq/ChatFaq";
import { Answer } from "./Answer";
import { SourcesPanel } from "./SourcesPanel";
import { ToolActivity } from "./ToolActivity";
import type { ChatText } from "./strings";

export function messageAnswerText(m: ChatUIMessage): string {
  return m.parts.map((p) => (p.type === "text" ? p.text : "")).join("");
}

function citationsOf(m: ChatUIMessage): Citation[] {
  for (let i = m.parts.length - 1; i >= 0; i--) {
    const p = m.parts[i];
    if (p.type === "data-citations") return p.data.citations;
  }
  return [];
}

function UserMessage({ m }: { m: ChatUIMessage }) {
  return (
    <div data-testid="user-message" className="flex justify-end">
      <div className="max-w-[85%] rounded-2xl rounded-br-sm bg-blue-600 px-4 py-2 whitespace-pre-wrap break-words text-white">
        {messageAnswerText(m)}
      </div>
    </div>
  );
}

function AssistantMessage({
  m,
  t,
  streaming,
  isLast,
  onRetry,
  question,
}: {
  m: ChatUIMessage;
  t: ChatText;
  streaming: boolean;
  isLast: boolean;
  onRetry: () => void;
  question?: string;
}) {
  const [copied, setCopied] = useState(false);
  const text = messageAnswerText(m);
  const all = citationsOf(m);
  const byN = useMemo(() => new Map(all.map((c) => [c.n, c])), [all]);
  const tools = m.parts.filter((p): p is DynamicToolUIPart => p.type === "dynamic-tool");
  const citedOrder = streaming ? [] : citedNumbers(text).filter((n) => byN.has(n));
  const cited = citedOrder.map((n) => byN.get(n)!);
  const others = streaming ? [] : all.filter((c) => !citedOrder.includes(c.n));

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
      setTimeout(() => setCopied(false), 1500);
    } catch {
      // Clipboard blocked (insecure context or permission): nothing to do.
    }
  };

  return (
    <div data-testid="assistant-message" data-streaming={streaming || undefined} className="min-w-0">
      <ToolActivity parts={tools} t={t} />
      {!streaming && <FaqAnswerCard citations={all} />}
      {text ? (
        <Answer text={text} citations={byN} t={t} />
      ) : streaming ? (
        <p className="animate-pulse text-sm text-zinc-500">{t.thinking}</p>
      ) : null}
      {!streaming && <SourcesPanel cited={cited} others={others} t={t} />}
      {!streaming && text && (
        <div className="mt-2 flex gap-3 text-xs text-zinc-500 dark:text-zinc-400">
          <button type="button" data-testid="copy-answer" onClick={copy} className="hover:text-zinc-800 dark:hover:text-zinc-100">
            {copied ? t.copied : t.copy}
          </button>
          {isLast && (
            <button type="button" data-testid="retry-answer" onClick={onRetry} className="hover:text-zinc-800 dark:hover:text-zinc-100">
              {t.retry}
            </button>
          )}
          {question && <PromoteToFaq question={question} answer={text} citations={cited} />}
        </div>
      )}
    </div>
  );
}

export function MessageView(props: {
  m: ChatUIMessage;
  t: ChatText;
  streaming: boolean;
  isLast: boolean;
  onRetry: () => void;
  /** The question this answer replies to (for "promote to FAQ"). */
  question?: string;
}) {
  return props.m.role === "user" ? <UserMessage m={props.m} /> : <AssistantMessage {...props} />;
}
