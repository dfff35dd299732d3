"use client";

import Link from "next/link";
import { useEffect, useState } from "react";
import Markdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";
import { useAccess } from "@/components/account/viewer";
import { CitationChip } from "@/components/chat/CitationChip";
import { SourceLink } from "@/components/chat/source-viewer";
import { T as CHAT } from "@/components/chat/strings";
import { useMessages } from "@/components/i18n";
import { kbApi } from "@/components/kbs/api";
import { KbOptions } from "@/components/kbs/KbOptions";
import { Select, SubmitForm, TextBox } from "@/components/ui";
import { stripCitations } from "@/lib/agent/citations";
import type { Citation } from "@/lib/agent/protocol";
import { faqIdOfChunk } from "@/lib/faq/types";
import type { KnowledgeBase } from "@/lib/kb/types";
import { faqApi } from "./api";
import { fill, T } from "./messages";

/** The entry's answer is Markdown (as written in the FAQ tab or taken from a document): drawn, not shown as source. */
const md: Components = {
  p: ({ children }) => <p className="my-1 first:mt-0 last:mb-0">{children}</p>,
  ul: ({ children }) => <ul className="my-1 list-disc pl-5">{children}</ul>,
  ol: ({ children }) => <ol className="my-1 list-decimal pl-5">{children}</ol>,
  a: ({ href, children }) => (
    <a href={href} target="_blank" rel="noreferrer noopener" className="text-blue-700 underline dark:text-blue-300">
      {children}
    </a>
  ),
  code: ({ children }) => <code className="rounded bg-emerald-100 px-1 text-[13px] dark:bg-emerald-900/50">{children}</code>,
};
const remarkPlugins = [remarkGfm];

/**
 * Above an answer whose sources start with a FAQ entry: the entry's answer, labelled as such, its number a
 * citation chip like an answer's, with a link to the passage it was taken from (highlighted) when it has one.
 * `n`: the number the sources list shows for it.
 */
export function FaqAnswerCard({ citations, n }: { citations: readonly Citation[]; n?: (c: Citation) => number | undefined }) {
  const t = useMessages(T);
  const chat = useMessages(CHAT);
  const faq = citations.find((c) => faqIdOfChunk(c.chunk_id));
  if (!faq) return null;
  const shownN = n?.(faq) ?? faq.n;
  return (
    <div
      data-testid="faq-answer"
      data-faq-id={faqIdOfChunk(faq.chunk_id)}
      className="mb-3 rounded-xl border border-emerald-300 bg-emerald-50 p-3 dark:border-emerald-800 dark:bg-emerald-950/30"
    >
      <p className="flex items-center gap-2 text-xs">
        <span data-testid="faq-answer-label" className="rounded-full bg-emerald-700 px-2 py-0.5 font-semibold text-white">
          {t.faqAnswer}
        </span>
        <CitationChip n={shownN} citation={{ ...faq, n: shownN }} claim={faq.text} t={chat} />
        <span data-testid="faq-answer-question" className="font-medium">
          {faq.heading}
        </span>
      </p>
      <div data-testid="faq-answer-text" className="mt-2 text-sm leading-relaxed">
        <Markdown components={md} remarkPlugins={remarkPlugins}>
          {faq.text}
        </Markdown>
      </div>
      {faq.document.id && (
        <SourceLink
          citation={faq}
          claim={faq.text}
          data-testid="faq-answer-source"
          className="mt-1 inline-block text-xs text-blue-700 underline dark:text-blue-300"
        >
          {t.openSource} · {faq.document.source}
        </SourceLink>
      )}
    </div>
  );
}

/** "Promote this answer to a FAQ": the question and the answer (without citation markers), editable, saved to a knowledge base. */
export function PromoteToFaq({ question, answer, citations }: { question: string; answer: string; citations: readonly Citation[] }) {
  const t = useMessages(T);
  const [open, setOpen] = useState(false);
  const [q, setQ] = useState(question);
  const [a, setA] = useState(() => stripCitations(answer).trim());
  const [kbs, setKbs] = useState<KnowledgeBase[]>([]);
  const [kb, setKb] = useState<string>(citations[0]?.kb ?? "");
  const [saved, setSaved] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { write } = useAccess();
  useEffect(() => {
    if (!open) return;
    kbApi.list().then(
      (r) => {
        setKbs(r.kbs);
        setKb((cur) => cur || (r.kbs.find((k) => k.isDefault) ?? r.kbs[0])?.name || "");
      },
      () => {},
    );
  }, [open]);

  // A reader may not add FAQ entries: the action is not offered (the API would refuse it on Save).
  if (!write) return null;
  if (saved) {
    return (
      <span data-testid="promoted" className="text-emerald-700 dark:text-emerald-300">
        {t.promoted} ·{" "}
        <Link href={`/faq?kb=${encodeURIComponent(saved)}`} className="underline">
          {t.openFaq}
        </Link>
      </span>
    );
  }
  if (!open) {
    return (
      <button
        type="button"
        data-testid="promote-faq"
        onClick={() => setOpen(true)}
        className="hover:text-zinc-800 dark:hover:text-zinc-100"
      >
        {t.promote}
      </button>
    );
  }
  const field =
    "w-full rounded-lg border border-zinc-300 bg-white px-2 py-1 text-sm text-zinc-900 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100";
  return (
    <SubmitForm
      testid="promote-form"
      className="mt-2 flex w-full flex-col gap-2"
      onSubmit={() => {
        setError(null);
        faqApi.add({ question: q, answer: a, kb: kb || undefined, from: "chat" }).then(
          (r) => setSaved(r.faq.kb),
          (err: unknown) => setError(err instanceof Error ? err.message : String(err)),
        );
      }}
    >
      <TextBox label={t.question} testid="promote-question" className={field} value={q} onChange={setQ} required />
      <TextBox label={t.answer} testid="promote-answer" className={field} rows={4} value={a} onChange={setA} required />
      {kbs.length > 1 && (
        <Select label={t.kb} testid="promote-kb" className={field} value={kb} onChange={setKb}>
          <KbOptions kbs={kbs} />
        </Select>
      )}
      {error && (
        <span role="alert" className="text-red-700">
          {fill(t.failed, { message: error })}
        </span>
      )}
      <span className="flex gap-2">
        <button
          type="submit"
          data-testid="promote-save"
          className="rounded-lg bg-blue-600 px-3 py-1 font-medium text-white hover:bg-blue-700"
        >
          {t.save}
        </button>
        <button type="button" onClick={() => setOpen(false)} className="rounded-lg px-3 py-1 hover:bg-zinc-100 dark:hover:bg-zinc-800">
          {t.cancel}
        </button>
      </span>
    </SubmitForm>
  );
}
