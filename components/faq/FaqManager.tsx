"use client";

import Link from "next/link";
import { type ComponentProps, type ReactNode, useCallback, useEffect, useState } from "react";
import { useAccess } from "@/components/account/viewer";
import { useMessages } from "@/components/i18n";
import { kbLabel } from "@/components/kbs/api";
import { usePickedKb } from "@/components/kbs/use-picked-kb";
import { PageHeader, tabClass } from "@/components/PageHeader";
import { ListOrStatus, SubmitForm, Tabs, TextBox } from "@/components/ui";
import type { FaqStatus } from "@/lib/faq/types";
import { type FaqRecord, faqApi, splitLines } from "./api";
import { GeneratePanel } from "./GeneratePanel";
import { fill, T } from "./messages";

/** Where an entry came from, in the UI language (stored labels are English words). */
function sourceLabel(t: (typeof T)["en"], label: string): string {
  return (t as Record<string, string>)[`label_${label}`] ?? label;
}

const input = "w-full rounded-lg border border-zinc-300 bg-white px-3 py-2 text-sm dark:border-zinc-700 dark:bg-zinc-900";

/** A FAQ form's text box: its label is also its placeholder. */
function FaqBox(props: Omit<ComponentProps<typeof TextBox>, "className" | "placeholder">) {
  return <TextBox {...props} placeholder={props.label} className={input} />;
}
const button = "rounded-lg px-3 py-1.5 text-sm font-medium";

/** One of an entry's action buttons; `tone` is its colours. */
function ItemAction({ testid, onClick, tone, children }: { testid: string; onClick: () => void; tone: string; children: ReactNode }) {
  return (
    <button type="button" data-testid={testid} onClick={onClick} className={`${button} ${tone}`}>
      {children}
    </button>
  );
}

function FaqForm({
  initial,
  onSave,
  onCancel,
  testid,
}: {
  initial?: Pick<FaqRecord, "question" | "answer" | "phrasings">;
  onSave: (v: { question: string; answer: string; phrasings: string[] }) => Promise<void>;
  onCancel?: () => void;
  testid: string;
}) {
  const t = useMessages(T);
  const [question, setQuestion] = useState(initial?.question ?? "");
  const [answer, setAnswer] = useState(initial?.answer ?? "");
  const [phrasings, setPhrasings] = useState((initial?.phrasings ?? []).join("\n"));
  const [busy, setBusy] = useState(false);
  return (
    <SubmitForm
      testid={testid}
      className="flex flex-col gap-2"
      onSubmit={async () => {
        setBusy(true);
        try {
          await onSave({ question, answer, phrasings: splitLines(phrasings) });
          if (!initial) {
            setQuestion("");
            setAnswer("");
            setPhrasings("");
          }
        } finally {
          setBusy(false);
        }
      }}
    >
      <FaqBox label={t.question} testid="faq-question" value={question} onChange={setQuestion} required />
      <FaqBox label={t.answer} testid="faq-answer" rows={3} value={answer} onChange={setAnswer} required />
      <FaqBox label={t.phrasings} testid="faq-phrasings" rows={2} value={phrasings} onChange={setPhrasings} />
      <div className="flex gap-2">
        <button
          type="submit"
          data-testid="faq-save"
          disabled={busy}
          className={`${button} bg-blue-600 text-white hover:bg-blue-700 disabled:opacity-50`}
        >
          {t.save}
        </button>
        {onCancel && (
          <button
            type="button"
            onClick={onCancel}
            className={`${button} text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800`}
          >
            {t.cancel}
          </button>
        )}
      </div>
    </SubmitForm>
  );
}

function FaqItem({ faq, onChanged, onError }: { faq: FaqRecord; onChanged: () => void; onError: (e: unknown) => void }) {
  const t = useMessages(T);
  const [editing, setEditing] = useState(false);
  const writable = useAccess().canWrite(faq.kb);
  const act = (fn: () => Promise<unknown>) => fn().then(onChanged, onError);
  if (editing) {
    return (
      <li data-testid="faq-item" className="rounded-lg border border-zinc-200 p-3 dark:border-zinc-800">
        <FaqForm
          testid="faq-edit-form"
          initial={faq}
          onCancel={() => setEditing(false)}
          onSave={async (v) => {
            await faqApi.update(faq.id, v).then(() => {
              setEditing(false);
              onChanged();
            }, onError);
          }}
        />
      </li>
    );
  }
  return (
    <li data-testid="faq-item" data-faq-id={faq.id} className="rounded-lg border border-zinc-200 p-3 dark:border-zinc-800">
      <p data-testid="faq-item-question" className="font-semibold">
        {faq.question}
      </p>
      <p data-testid="faq-item-answer" className="mt-1 whitespace-pre-wrap text-sm text-zinc-700 dark:text-zinc-300">
        {faq.answer}
      </p>
      {faq.phrasings.length > 0 && <p className="mt-1 text-xs text-zinc-500">{fill(t.alsoAsked, { list: faq.phrasings.join(" · ") })}</p>}
      <div className="mt-2 flex flex-wrap items-center gap-2 text-xs text-zinc-500 dark:text-zinc-400">
        <span data-testid="faq-item-source">{fill(t.source, { label: sourceLabel(t, faq.source.label) })}</span>
        {faq.source.documentId && (
          <Link href={`/documents/${encodeURIComponent(faq.source.documentId)}`} className="text-blue-700 underline dark:text-blue-300">
            {t.openSource}
          </Link>
        )}
        {writable && (
          <span className="ml-auto flex gap-1">
            {faq.status === "pending" ? (
              <>
                <ItemAction
                  testid="faq-accept"
                  onClick={() => act(() => faqApi.update(faq.id, { status: "accepted" }))}
                  tone="bg-green-600 text-white"
                >
                  {t.accept}
                </ItemAction>
                <ItemAction testid="faq-reject" onClick={() => act(() => faqApi.remove(faq.id))} tone="text-red-700 hover:bg-red-50">
                  {t.reject}
                </ItemAction>
              </>
            ) : null}
            <ItemAction testid="faq-edit" onClick={() => setEditing(true)} tone="hover:bg-zinc-100 dark:hover:bg-zinc-800">
              {t.edit}
            </ItemAction>
            <ItemAction
              testid="faq-delete"
              onClick={() => act(() => faqApi.remove(faq.id))}
              tone="text-red-700 hover:bg-red-50 dark:text-red-300"
            >
              {t.delete}
            </ItemAction>
          </span>
        )}
      </div>
    </li>
  );
}

/** The FAQ of each knowledge base (one tab per knowledge base): search, add, edit, delete, review generated pairs. */
export function FaqManager({ initialKb }: { initialKb?: string }) {
  const t = useMessages(T);
  const { canWrite } = useAccess();
  const [status, setStatus] = useState<FaqStatus>("accepted");
  const [q, setQ] = useState("");
  const [faqs, setFaqs] = useState<FaqRecord[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const onError = useCallback((e: unknown) => setError(e instanceof Error ? e.message || String(e) : String(e)), []);
  const { kbs, kb, setKb } = usePickedKb(initialKb, onError);

  const reload = useCallback(() => {
    if (!kb) return;
    setError(null);
    faqApi.list({ kb, q: q.trim() || undefined, status }).then((r) => setFaqs(r.faqs), onError);
  }, [kb, q, status, onError]);
  useEffect(() => {
    const timer = setTimeout(reload, 150);
    return () => clearTimeout(timer);
  }, [reload]);

  return (
    <main className="mx-auto flex max-w-3xl flex-col gap-4 px-3 py-6 sm:px-5">
      <PageHeader title={t.title} back={t.back} />
      <p className="text-sm text-zinc-600 dark:text-zinc-400">{t.intro}</p>
      <Tabs
        label={t.kb}
        className="flex flex-wrap gap-1 border-b border-zinc-200 dark:border-zinc-800"
        tabs={kbs.map((k) => ({ id: k.name, label: kbLabel(k) }))}
        selected={kb}
        onSelect={setKb}
        testidPrefix="faq-kb-tab-"
        tabClass={tabClass}
      />
      <div className="flex flex-wrap items-center gap-2">
        <input
          type="search"
          aria-label={t.search}
          placeholder={t.search}
          data-testid="faq-search"
          className={`${input} flex-1`}
          value={q}
          onChange={(e) => setQ(e.target.value)}
        />
        <Tabs
          className="flex gap-1"
          tabs={[
            { id: "accepted", label: t.accepted },
            { id: "pending", label: t.pending },
          ]}
          selected={status}
          onSelect={setStatus}
          testidPrefix="faq-status-"
          tabClass={tabClass}
        />
      </div>
      {status === "pending" && kb && canWrite(kb) && <GeneratePanel kb={kb} onProgress={reload} />}
      {error && (
        <p
          role="alert"
          data-testid="faq-error"
          className="rounded-lg bg-red-50 px-3 py-2 text-sm text-red-800 dark:bg-red-950/40 dark:text-red-200"
        >
          {fill(t.failed, { message: error })}
        </p>
      )}
      {kb && canWrite(kb) && (
        <details className="rounded-lg border border-zinc-200 p-3 dark:border-zinc-800" open={faqs?.length === 0 && !q}>
          <summary data-testid="faq-add-toggle" className="cursor-pointer text-sm font-medium">
            {t.add}
          </summary>
          <div className="mt-3">
            <FaqForm
              testid="faq-add-form"
              onSave={async (v) => {
                await faqApi.add({ ...v, kb, from: "ui" }).then(() => {
                  setStatus("accepted");
                  reload();
                }, onError);
              }}
            />
          </div>
        </details>
      )}
      <ListOrStatus items={faqs} loading={t.loading} empty={t.empty} emptyTestId="faq-empty">
        {(list) => (
          <ul data-testid="faq-list" className="flex flex-col gap-2">
            {list.map((f) => (
              <FaqItem key={f.id} faq={f} onChanged={reload} onError={onError} />
            ))}
          </ul>
        )}
      </ListOrStatus>
    </main>
  );
}
