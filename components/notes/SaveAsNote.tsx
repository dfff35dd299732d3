"use client";

import Link from "next/link";
import { useState } from "react";
import { useMessages } from "@/components/i18n";
import { notesApi, notesHref } from "./api";
import { T } from "./messages";

/**
 * "Save as note" under an answer: the server keeps its own copy of the answer (checked text and citations) as a
 * note of the knowledge bases it cites; then a link to the notes, carrying the conversation's selected sources
 * (`sources`) to the notes page's Scope picker, from which a study guide, briefing or timeline is made.
 */
export function SaveAsNote({ messageId, sources, className }: { messageId: string; sources: readonly string[]; className: string }) {
  const t = useMessages(T);
  const [state, setState] = useState<"idle" | "saving" | { kb: string } | { error: string }>("idle");
  if (typeof state === "object" && "kb" in state) {
    return (
      <span data-testid="note-saved" role="status" className="text-emerald-700 dark:text-emerald-300">
        {t.saved} ·{" "}
        <Link href={notesHref(state.kb, sources)} data-testid="open-notes" className="underline">
          {t.open}
        </Link>
      </span>
    );
  }
  const save = () => {
    setState("saving");
    // The conversation holding the answer, once saved (the server then takes the answer from it).
    const conversationId = new URL(window.location.href).searchParams.get("c") ?? undefined;
    notesApi.save({ messageId, conversationId }).then(
      (r) => setState({ kb: r.note.kbs[0] ?? "" }),
      (err: unknown) => setState({ error: err instanceof Error ? err.message : String(err) }),
    );
  };
  return (
    <>
      <button type="button" data-testid="save-note" disabled={state === "saving"} onClick={save} className={className}>
        {state === "saving" ? t.saving : t.save}
      </button>
      {typeof state === "object" && "error" in state && (
        <span role="alert" className="text-red-700 dark:text-red-300">
          {t.failed.replace("{message}", state.error)}
        </span>
      )}
    </>
  );
}
