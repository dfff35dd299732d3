"use client";

import { type Messages, useMessages } from "@/components/i18n";
import type { ChatUIMessage, FollowUp } from "@/lib/agent/protocol";

const T = {
  en: { related: "Related questions" },
  zh: { related: "相关问题" },
} satisfies Messages;

/** The follow-up suggestions the server sent with an answer (`data-followups`). */
function followUpsOf(m: ChatUIMessage | undefined): FollowUp[] {
  for (const p of m?.parts ?? []) if (p.type === "data-followups") return p.data.questions;
  return [];
}

/** Two or three questions to ask next, under the last answer; a click asks one. */
export function FollowUps({ message, onAsk }: { message: ChatUIMessage | undefined; onAsk: (question: string) => void }) {
  const t = useMessages(T);
  const questions = message?.role === "assistant" ? followUpsOf(message) : [];
  if (questions.length === 0) return null;
  return (
    <section aria-label={t.related} data-testid="follow-ups" className="-mt-2">
      <h2 className="mb-1.5 text-xs font-semibold tracking-wide text-zinc-600 uppercase dark:text-zinc-400">{t.related}</h2>
      <ul className="flex flex-col gap-1.5">
        {questions.map((q) => (
          <li key={q.question}>
            <button
              type="button"
              data-testid="follow-up-suggestion"
              onClick={() => onAsk(q.question)}
              className="w-full rounded-lg border border-zinc-200 px-3 py-1.5 text-left text-sm text-zinc-800 hover:border-blue-400 hover:bg-blue-50 dark:border-zinc-800 dark:text-zinc-200 dark:hover:border-blue-700 dark:hover:bg-blue-950/40"
            >
              <span aria-hidden="true" className="mr-1.5 text-zinc-500">
                ↳
              </span>
              {q.question}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
