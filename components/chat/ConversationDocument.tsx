"use client";

import { useMessages } from "@/components/i18n";
import type { ChatUIMessage } from "@/lib/agent/protocol";
import { Answer } from "./Answer";
import { headingPath } from "./ChunkCard";
import { checkedAnswer } from "./checked-answer";
import { messageAnswerText } from "./message-parts";
import { S } from "./share-strings";
import { documentHref } from "./sources";
import { fill, T } from "./strings";

/** An answer as the chat shows it once checked (checked-answer.ts), with its numbered references and the model that wrote it. */
function AnswerBlock({ m }: { m: ChatUIMessage }) {
  const t = useMessages(T);
  const s = useMessages(S);
  const { shown, check, byN, cited, model } = checkedAnswer(m);
  return (
    <article data-testid="shared-answer" className="text-[15px]">
      <Answer text={shown} citations={byN} check={check} t={t} />
      {model && (
        <p data-testid="answer-model" className="mt-1 text-[11px] text-zinc-600 dark:text-zinc-400">
          {fill(s.writtenBy, { model })}
        </p>
      )}
      {cited.length > 0 && (
        <section aria-label={s.references} className="mt-3 border-t border-zinc-200 pt-2 text-sm dark:border-zinc-800">
          <h3 className="font-semibold">{s.references}</h3>
          <ol className="mt-1 space-y-1">
            {cited.map((c) => (
              <li key={c.chunk_id} data-testid="shared-reference" className="flex gap-2">
                <span>[{c.n}]</span>
                <a href={documentHref(c)} className="text-blue-800 underline dark:text-blue-300">
                  {c.document.title}
                  {headingPath(c) ? ` › ${headingPath(c)}` : ""}
                  {c.page ? ` · ${fill(s.page, { page: c.page })}` : ""}
                </a>
              </li>
            ))}
          </ol>
        </section>
      )}
    </article>
  );
}

/** A conversation read-only, as printed and as a share link shows it: questions, answers, numbered references. */
export function ConversationDocument({ title, messages }: { title: string; messages: readonly ChatUIMessage[] }) {
  return (
    <div data-testid="conversation-document" className="mx-auto flex max-w-3xl flex-col gap-5 px-4 py-6">
      <h1 className="text-xl font-semibold">{title}</h1>
      {messages.map((m) =>
        m.role === "user" ? (
          <h2 key={m.id} data-testid="shared-question" className="rounded-xl bg-zinc-100 px-3 py-2 text-base font-medium dark:bg-zinc-800">
            {messageAnswerText(m)}
          </h2>
        ) : m.role === "assistant" ? (
          <AnswerBlock key={m.id} m={m} />
        ) : null,
      )}
    </div>
  );
}
