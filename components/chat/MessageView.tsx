"use client";

import type { DynamicToolUIPart } from "ai";
import { useMemo, useState } from "react";
import { copyText } from "@/components/api";
import { FaqAnswerCard, PromoteToFaq } from "@/components/faq/ChatFaq";
import { SaveAsNote } from "@/components/notes/SaveAsNote";
import { SubmitForm } from "@/components/ui";
import type { ChatUIMessage } from "@/lib/agent/protocol";
import { MAX_NOTE_CHARS } from "@/lib/conversations/schema";
import { faqIdOfChunk } from "@/lib/faq/types";
import { Answer } from "./Answer";
import { MessageAttachments } from "./attachments";
import { checkedAnswer, checkedMarkdown } from "./checked-answer";
import type { Feedback } from "./conversations-api";
import { AnswerModel } from "./ModelPicker";
import { citationsOf, messageAnswerText } from "./message-parts";
import { SourcesPanel } from "./SourcesPanel";
import { TurnContext } from "./source-viewer";
import { repeatsFaq, supportByChunk } from "./sources";
import { type ChatText, fill } from "./strings";
import { ToolActivity } from "./ToolActivity";
import { VersionSwitch, type Versions } from "./VersionSwitch";

const ACTION = "rounded px-1 py-0.5 hover:bg-zinc-100 hover:text-zinc-900 dark:hover:bg-zinc-800 dark:hover:text-zinc-100";

function UserMessage({
  m,
  t,
  busy,
  onEdit,
  versions,
}: {
  m: ChatUIMessage;
  t: ChatText;
  busy: boolean;
  onEdit: (id: string, text: string) => void;
  versions?: Versions;
}) {
  const text = messageAnswerText(m);
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(text);
  if (editing) {
    return (
      <SubmitForm
        testid="edit-form"
        className="ml-auto flex w-full max-w-[85%] flex-col gap-2"
        onSubmit={() => {
          if (!draft.trim() || busy) return;
          setEditing(false);
          onEdit(m.id, draft.trim());
        }}
      >
        <textarea
          aria-label={t.editQuestion}
          data-testid="edit-input"
          // biome-ignore lint/a11y/noAutofocus: the user just asked to edit this question
          autoFocus
          value={draft}
          rows={3}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => e.key === "Escape" && setEditing(false)}
          className="w-full rounded-xl border border-zinc-400 bg-white px-3 py-2 text-[15px] dark:border-zinc-600 dark:bg-zinc-900"
        />
        <div className="flex justify-end gap-2 text-sm">
          <button
            type="button"
            onClick={() => setEditing(false)}
            className="rounded-lg px-3 py-1 text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"
          >
            {t.cancel}
          </button>
          <button
            type="submit"
            data-testid="edit-send"
            disabled={busy || !draft.trim()}
            className="rounded-lg bg-blue-700 px-3 py-1 font-medium text-white disabled:opacity-50"
          >
            {t.saveAndSend}
          </button>
        </div>
      </SubmitForm>
    );
  }
  return (
    <div className="group flex flex-col items-end gap-1">
      <div
        data-testid="user-message"
        className="max-w-[85%] rounded-2xl rounded-br-sm bg-blue-700 px-4 py-2 whitespace-pre-wrap break-words text-white"
      >
        {text}
      </div>
      <MessageAttachments attachments={m.metadata?.attachments} />
      <div className="flex items-center gap-2">
        <VersionSwitch versions={versions} t={t} busy={busy} />
        <button
          type="button"
          data-testid="edit-question"
          disabled={busy}
          onClick={() => {
            setDraft(text);
            setEditing(true);
          }}
          className={`text-xs text-zinc-600 disabled:opacity-50 dark:text-zinc-400 ${ACTION}`}
        >
          {t.edit}
        </button>
      </div>
    </div>
  );
}

function FeedbackButtons({
  messageId,
  feedback,
  t,
  onFeedback,
}: {
  messageId: string;
  feedback?: Feedback;
  t: ChatText;
  onFeedback: FeedbackFn;
}) {
  const [draft, setDraft] = useState<{ rating: "up" | "down"; note: string } | null>(null);
  const [saved, setSaved] = useState(false);
  const rate = async (rating: "up" | "down") => {
    const next = feedback?.rating === rating ? null : rating;
    setSaved(false);
    await onFeedback(messageId, next);
    setDraft(next ? { rating: next, note: feedback?.note ?? "" } : null);
  };
  return (
    <>
      <RateButton rating="up" pressed={feedback?.rating === "up"} label={t.good} onClick={() => rate("up")} />
      <RateButton rating="down" pressed={feedback?.rating === "down"} label={t.bad} onClick={() => rate("down")} />
      {draft && (
        <SubmitForm
          testid="feedback-form"
          className="flex w-full flex-wrap items-center gap-2"
          onSubmit={async () => {
            await onFeedback(messageId, draft.rating, draft.note.trim() || undefined);
            setDraft(null);
            setSaved(true);
          }}
        >
          <input
            aria-label={t.feedbackNote}
            data-testid="feedback-note"
            value={draft.note}
            maxLength={MAX_NOTE_CHARS}
            placeholder={t.feedbackNote}
            onChange={(e) => setDraft({ ...draft, note: e.target.value })}
            className="min-w-0 flex-1 rounded border border-zinc-400 bg-white px-2 py-1 text-sm text-zinc-900 placeholder:text-zinc-600 dark:border-zinc-600 dark:bg-zinc-900 dark:text-zinc-100 dark:placeholder:text-zinc-400"
          />
          <button
            type="submit"
            data-testid="feedback-send"
            className="rounded bg-zinc-800 px-2 py-1 text-white dark:bg-zinc-200 dark:text-zinc-900"
          >
            {t.feedbackSend}
          </button>
        </SubmitForm>
      )}
      {saved && (
        <span role="status" data-testid="feedback-saved" className="text-green-800 dark:text-green-300">
          {t.feedbackThanks}
        </span>
      )}
    </>
  );
}

const PRESSED = {
  up: "aria-pressed:bg-green-100 aria-pressed:text-green-800 dark:aria-pressed:bg-green-950 dark:aria-pressed:text-green-300",
  down: "aria-pressed:bg-red-100 aria-pressed:text-red-800 dark:aria-pressed:bg-red-950 dark:aria-pressed:text-red-300",
};

/** A thumbs-up or thumbs-down toggle. */
function RateButton({ rating, pressed, label, onClick }: { rating: "up" | "down"; pressed: boolean; label: string; onClick: () => void }) {
  return (
    <button
      type="button"
      data-testid={`thumbs-${rating}`}
      aria-pressed={pressed}
      aria-label={label}
      title={label}
      onClick={onClick}
      className={`${ACTION} ${PRESSED[rating]}`}
    >
      <Thumb down={rating === "down"} />
    </button>
  );
}

/** A thumb drawn as an SVG: emoji need a color-emoji font that many Linux machines lack. */
function Thumb({ down }: { down?: boolean }) {
  return (
    <svg
      aria-hidden="true"
      viewBox="0 0 24 24"
      width="16"
      height="16"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.8"
      strokeLinecap="round"
      strokeLinejoin="round"
      className={down ? "rotate-180" : undefined}
    >
      <path d="M7 10v11H4a1 1 0 0 1-1-1v-9a1 1 0 0 1 1-1h3Zm0 0 4-8a2.5 2.5 0 0 1 2.5 2.5V9h5.6a2 2 0 0 1 2 2.3l-1.3 8A2 2 0 0 1 17.8 21H7" />
    </svg>
  );
}

type FeedbackFn = (messageId: string, rating: "up" | "down" | null, note?: string) => Promise<void>;

interface AssistantProps {
  m: ChatUIMessage;
  t: ChatText;
  streaming: boolean;
  busy: boolean;
  feedback?: Feedback;
  onRegenerate: (id: string) => void;
  onFeedback?: FeedbackFn;
  /** The question this answer replies to (for "promote to FAQ"). */
  question?: string;
  /** The versions of this message (regenerated answers, edited questions). */
  versions?: Versions;
  /** The answer was cut short by Stop. */
  stopped?: boolean;
  /** The conversation's selected sources (the Scope picker): a study guide on the notes page starts from them. */
  sources?: readonly string[];
}

function AssistantMessage({
  m,
  t,
  streaming,
  busy,
  feedback,
  onRegenerate,
  onFeedback,
  question,
  versions,
  stopped,
  sources = [],
}: AssistantProps) {
  const [copied, setCopied] = useState(false);
  // Once checked, the answer is shown with its citations as the check left them (moved where another chunk supports
  // the sentence) and its notes: the one rendering every view of it shares (checked-answer.ts).
  const answer = useMemo(() => checkedAnswer(m, streaming), [m, streaming]);
  const { text, shown, check, byN, cited, others } = answer;
  const all = citationsOf(m);
  const support = useMemo(() => check && supportByChunk(check, byN), [check, byN]);
  const tools = m.parts.filter((p): p is DynamicToolUIPart => p.type === "dynamic-tool");
  // An answer that only quotes the FAQ entry shown above it is not shown a second time under the card.
  const faq = all.find((c) => faqIdOfChunk(c.chunk_id));
  const faqIsAnswer = !streaming && !!faq && repeatsFaq(text, faq.text);
  const page = (p: number) => fill(t.page, { page: p });

  const copy = async () => {
    if (await copyText(checkedMarkdown(answer, t, { heading: t.references, page }))) {
      setCopied(true);
      setTimeout(() => setCopied(false), 1500);
    }
  };

  return (
    <div
      id={`m-${m.id}`}
      data-testid="assistant-message"
      data-message-id={m.id}
      data-streaming={streaming || undefined}
      className="min-w-0 scroll-mt-4"
    >
      <TurnContext.Provider value={m.id}>
        <ToolActivity parts={tools} t={t} />
        {!streaming && <FaqAnswerCard citations={all} n={(c) => byN.get(c.n)?.n} />}
        {faqIsAnswer ? null : text ? (
          <Answer text={shown} citations={byN} check={check} t={t} />
        ) : streaming ? (
          <p className="animate-pulse text-sm text-zinc-600 dark:text-zinc-400">{t.thinking}</p>
        ) : null}
        {!streaming && <SourcesPanel cited={cited} others={others} support={support} t={t} />}
        {stopped && (
          <p data-testid="stopped-marker" className="mt-1 text-xs text-zinc-600 italic dark:text-zinc-400">
            {t.stopped}
          </p>
        )}
        {!streaming && text && (
          <div data-testid="answer-actions" className="mt-2 flex flex-wrap items-center gap-2 text-xs text-zinc-600 dark:text-zinc-400">
            <VersionSwitch versions={versions} t={t} busy={busy} />
            <button type="button" data-testid="copy-answer" onClick={copy} className={ACTION}>
              {copied ? t.copied : t.copy}
            </button>
            <button
              type="button"
              data-testid="retry-answer"
              disabled={busy}
              onClick={() => onRegenerate(m.id)}
              className={`${ACTION} disabled:opacity-50`}
            >
              {t.regenerate}
            </button>
            {onFeedback && <FeedbackButtons messageId={m.id} feedback={feedback} t={t} onFeedback={onFeedback} />}
            {question && <PromoteToFaq question={question} answer={text} citations={cited} />}
            {cited.length > 0 && <SaveAsNote messageId={m.id} sources={sources} className={ACTION} />}
            <AnswerModel m={m} />
          </div>
        )}
      </TurnContext.Provider>
    </div>
  );
}

export function MessageView(props: AssistantProps & { onEdit: (id: string, text: string) => void }) {
  return props.m.role === "user" ? (
    <UserMessage m={props.m} t={props.t} busy={props.busy} onEdit={props.onEdit} versions={props.versions} />
  ) : (
    <AssistantMessage {...props} />
  );
}
