"use client";

import { useCallback, useEffect, useMemo, useState } from "react";
import { ConfirmButton } from "@/components/ConfirmButton";
import { Answer } from "@/components/chat/Answer";
import { DocumentScope } from "@/components/chat/DocumentScope";
import { displayCitations } from "@/components/chat/sources";
import { T as CHAT } from "@/components/chat/strings";
import { downloadMarkdown } from "@/components/download";
import { useLocale, useMessages } from "@/components/i18n";
import { kbLabel } from "@/components/kbs/api";
import { usePickedKb } from "@/components/kbs/use-picked-kb";
import { PageHeader, tabClass } from "@/components/PageHeader";
import { ListOrStatus, SubmitForm, Tabs, TextBox } from "@/components/ui";
import { withCheckNotes } from "@/lib/agent/answer-links";
import { MADE_KINDS, type MadeKind, type Note, type NoteSummary } from "@/lib/notes/schema";
import { notesApi } from "./api";
import { noteFileName, noteMarkdown } from "./markdown";
import { T } from "./messages";

const button = "rounded-lg px-2 py-1 text-sm";
const action = `${button} text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800`;

/** One note as the chat shows an answer: chips, the citation check's notes, who wrote it; rename, export, delete. */
function NoteView({ note, onChanged, onDeleted }: { note: Note; onChanged: (n: Note) => void; onDeleted: () => void }) {
  const t = useMessages(T);
  const chat = useMessages(CHAT);
  const [renaming, setRenaming] = useState(false);
  const [title, setTitle] = useState(note.title);
  const [error, setError] = useState<string | null>(null);
  const shown = useMemo(() => (note.check ? withCheckNotes(note.check) : note.text), [note]);
  const { byN } = useMemo(() => displayCitations(note.text, note.citations), [note]);
  const fail = (e: unknown) => setError(e instanceof Error ? e.message : String(e));
  return (
    <article
      data-testid="note-view"
      data-note-id={note.id}
      aria-labelledby="note-title"
      className="rounded-xl border border-zinc-200 p-4 dark:border-zinc-800"
    >
      {renaming ? (
        <SubmitForm
          testid="note-rename-form"
          className="flex flex-wrap gap-2"
          onSubmit={() =>
            notesApi.rename(note.id, title).then((r) => {
              setRenaming(false);
              onChanged(r.note);
            }, fail)
          }
        >
          <TextBox
            label={t.renameLabel}
            testid="note-title-input"
            className="min-w-0 flex-1 rounded-lg border border-zinc-300 bg-white px-2 py-1 text-sm dark:border-zinc-700 dark:bg-zinc-900"
            value={title}
            onChange={setTitle}
            maxLength={200}
            required
          />
          <button type="submit" data-testid="note-rename-save" className={`${button} bg-blue-600 text-white hover:bg-blue-700`}>
            {t.saveTitle}
          </button>
          <button type="button" onClick={() => setRenaming(false)} className={action}>
            {t.cancel}
          </button>
        </SubmitForm>
      ) : (
        <h2 id="note-title" data-testid="note-title" className="text-base font-semibold">
          {note.title}
        </h2>
      )}
      <p className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">
        <span data-testid="note-kind">{t[note.kind]}</span>
        {note.model && <> · {t.writtenBy.replace("{model}", note.model)}</>}
        {note.check && <> · {t.checked}</>}
      </p>
      {note.question && (
        <p className="mt-2 text-sm text-zinc-700 italic dark:text-zinc-300">{t.asked.replace("{question}", note.question)}</p>
      )}
      <div className="mt-3 text-sm leading-relaxed">
        <Answer text={shown} citations={byN} check={note.check} t={chat} />
      </div>
      <div className="mt-3 flex flex-wrap items-center gap-1">
        <button type="button" data-testid="note-rename" onClick={() => setRenaming(true)} className={action}>
          {t.rename}
        </button>
        <button
          type="button"
          data-testid="note-export"
          onClick={() =>
            downloadMarkdown(
              noteFileName(note.title),
              noteMarkdown(
                note,
                {
                  references: t.references,
                  notSupported: chat.notSupported,
                  citationMoved: chat.citationMoved,
                  page: chat.page,
                  writtenBy: t.writtenBy,
                  asked: t.asked,
                },
                window.location.origin,
              ),
            )
          }
          className={action}
        >
          {t.export}
        </button>
        <ConfirmButton
          testid="note-delete"
          label={t.delete}
          question={t.deleteQuestion}
          yes={t.yes}
          no={t.no}
          onConfirm={() => notesApi.remove(note.id).then(onDeleted, fail)}
          classes={{
            trigger: `${button} text-red-700 hover:bg-red-50 dark:text-red-300 dark:hover:bg-red-950/40`,
            prompt: "flex flex-wrap items-center gap-2 text-sm",
            yes: `${button} bg-red-600 text-white hover:bg-red-700`,
            no: action,
          }}
        />
      </div>
      {error && (
        <p role="alert" className="mt-2 text-sm text-red-700 dark:text-red-300">
          {t.failed.replace("{message}", error)}
        </p>
      )}
    </article>
  );
}

/**
 * The notes of each knowledge base (a tab each): the list, the open note, and — with a model — a study guide,
 * briefing or timeline made from the documents ticked in its Scope picker (the knowledge base's when none is);
 * offline the reason they are not offered.
 */
export function NotesPage({
  initialKb,
  initialDocuments = [],
  offline,
}: {
  initialKb?: string;
  initialDocuments?: string[];
  offline: boolean;
}) {
  const t = useMessages(T);
  const locale = useLocale();
  const [notes, setNotes] = useState<NoteSummary[] | null>(null);
  const [open, setOpen] = useState<Note | null>(null);
  const [making, setMaking] = useState<MadeKind | null>(null);
  // The documents a study guide, briefing or timeline is made from (none ticked: the knowledge base's); opened from
  // a conversation, its selected sources (those of another knowledge base drop out of the picker).
  const [picked, setPicked] = useState<string[]>(initialDocuments);
  const [error, setError] = useState<string | null>(null);
  const fail = useCallback((e: unknown) => setError(e instanceof Error ? e.message : String(e)), []);
  const { kbs, kb, setKb } = usePickedKb(initialKb, fail);
  const reload = useCallback(() => {
    if (!kb) return;
    notesApi.list(kb).then((r) => setNotes(r.notes), fail);
  }, [kb, fail]);
  useEffect(reload, [reload]);

  const show = (id: string) => notesApi.get(id).then((r) => setOpen(r.note), fail);
  const make = (kind: MadeKind) => {
    if (!kb) return;
    setMaking(kind);
    setError(null);
    notesApi
      .make({ kind, kb, documents: picked, locale })
      .then((r) => {
        setOpen(r.note);
        reload();
      }, fail)
      .finally(() => setMaking(null));
  };
  return (
    <main className="mx-auto flex max-w-3xl flex-col gap-4 px-3 py-6 sm:px-5">
      <PageHeader title={t.title} back={t.back} />
      <p className="text-sm text-zinc-600 dark:text-zinc-400">{t.intro}</p>
      <Tabs
        label={t.kb}
        className="flex flex-wrap gap-1 border-b border-zinc-200 dark:border-zinc-800"
        tabs={kbs.map((k) => ({ id: k.name, label: kbLabel(k) }))}
        selected={kb}
        onSelect={(next) => {
          setKb(next);
          setPicked([]);
          setOpen(null);
        }}
        testidPrefix="notes-kb-tab-"
        tabClass={tabClass}
      />
      <section aria-label={t.make} className="flex flex-wrap items-center gap-2 text-sm">
        {offline ? (
          <p data-testid="notes-needs-model" className="text-zinc-700 dark:text-zinc-300">
            {t.needsModel}
          </p>
        ) : (
          <>
            {kb && <DocumentScope value={picked} onChange={setPicked} kbs={[kb]} forNotes />}
            <span>{t.make}</span>
            {MADE_KINDS.map((kind) => (
              <button
                key={kind}
                type="button"
                data-testid={`make-${kind}`}
                disabled={!!making || !kb}
                onClick={() => make(kind)}
                className={`${button} border border-zinc-300 hover:bg-zinc-100 disabled:opacity-50 dark:border-zinc-700 dark:hover:bg-zinc-800`}
              >
                {making === kind ? t.making : t[kind]}
              </button>
            ))}
          </>
        )}
      </section>
      {error && (
        <p role="alert" className="text-sm text-red-700 dark:text-red-300">
          {t.failed.replace("{message}", error)}
        </p>
      )}
      <ListOrStatus items={notes} loading={t.loading} empty={t.empty} emptyTestId="notes-empty">
        {(list) => (
          <ul data-testid="notes-list" className="flex flex-col gap-1">
            {list.map((n) => (
              <li key={n.id}>
                <button
                  type="button"
                  data-testid="note-item"
                  data-note-id={n.id}
                  aria-current={open?.id === n.id || undefined}
                  onClick={() => show(n.id)}
                  className="flex w-full items-baseline gap-2 rounded-lg px-2 py-1.5 text-left text-sm hover:bg-zinc-100 aria-[current]:bg-zinc-100 dark:hover:bg-zinc-800 dark:aria-[current]:bg-zinc-800"
                >
                  <span className="min-w-0 flex-1 truncate font-medium">{n.title}</span>
                  <span className="shrink-0 text-xs text-zinc-600 dark:text-zinc-400">
                    {t[n.kind]} · {new Date(n.createdAt).toLocaleDateString(locale)}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        )}
      </ListOrStatus>
      {open && (
        <NoteView
          key={open.id}
          note={open}
          onChanged={(n) => {
            setOpen(n);
            reload();
          }}
          onDeleted={() => {
            setOpen(null);
            reload();
          }}
        />
      )}
    </main>
  );
}
