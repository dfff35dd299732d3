"use client";

import { type ReactNode, useEffect, useId, useRef, useState } from "react";
import { ATTACH_DROP_TARGET } from "@/components/documents/DocumentDropZone";
import { PaperclipIcon } from "@/components/icons";
import { Button, HiddenFileInput, SubmitForm } from "@/components/ui";
import type { ChatText } from "./strings";

const hasFiles = (e: React.DragEvent) => Array.from(e.dataTransfer.types).includes("Files");

/** Attaching files to the question: `disabledReason` says why this person cannot (the button stays, disabled). */
export interface ComposerAttach {
  label: string;
  onFiles: (files: File[]) => void;
  disabledReason?: string;
  /** The attached files, shown above the box. */
  chips: ReactNode;
  /** Why the question cannot be sent yet (an attachment still being added, or one that failed). */
  blocked?: string;
  /** Where a file dropped on the box goes, for the page's drop overlay. */
  dropNote: string;
}

/**
 * The question box: Enter sends, Shift+Enter adds a line (and Enter while an IME is composing does neither).
 * Files picked with the paperclip or dropped on the box are attached to the question.
 */
export function Composer({
  busy,
  onSend,
  onStop,
  t,
  attach,
}: {
  busy: boolean;
  onSend: (text: string) => void;
  onStop: () => void;
  t: ChatText;
  attach: ComposerAttach;
}) {
  const [text, setText] = useState("");
  const [why, setWhy] = useState(false);
  const ref = useRef<HTMLTextAreaElement>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const noteId = useId();

  // biome-ignore lint/correctness/useExhaustiveDependencies: resize the box whenever its text changes
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.style.height = "auto";
    el.style.height = `${Math.min(el.scrollHeight, 200)}px`;
  }, [text]);

  // The typed question stays in the box until it can be sent.
  const submit = () => {
    if (busy || !text.trim() || attach.blocked) return;
    onSend(text.trim());
    setText("");
  };
  const files = (picked: File[]) => {
    if (!picked.length) return;
    if (attach.disabledReason) setWhy(true);
    else attach.onFiles(picked);
  };
  const note = attach.blocked ?? (why ? attach.disabledReason : undefined);

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: only a drop target; the paperclip button is the way to attach without a mouse
    <div
      data-testid="composer"
      {...{ [ATTACH_DROP_TARGET]: attach.dropNote }}
      onDragOver={(e) => {
        if (!hasFiles(e)) return;
        e.preventDefault();
        e.dataTransfer.dropEffect = attach.disabledReason ? "none" : "copy";
      }}
      // Handled here, not by the page's drop zone (which skips a drop already handled).
      onDrop={(e) => {
        if (!hasFiles(e)) return;
        e.preventDefault();
        files(Array.from(e.dataTransfer.files));
      }}
    >
      {attach.chips}
      <SubmitForm className="mx-auto flex w-full max-w-3xl items-end gap-2" onSubmit={submit}>
        <button
          type="button"
          data-testid="attach-file"
          aria-label={attach.label}
          title={attach.disabledReason ?? attach.label}
          aria-disabled={attach.disabledReason ? true : undefined}
          aria-describedby={note ? noteId : undefined}
          onClick={() => (attach.disabledReason ? setWhy(true) : fileInput.current?.click())}
          className="h-11 w-11 shrink-0 rounded-xl border border-zinc-300 text-lg text-zinc-700 hover:bg-zinc-100 aria-disabled:cursor-not-allowed aria-disabled:opacity-50 dark:border-zinc-700 dark:text-zinc-300 dark:hover:bg-zinc-800"
        >
          <PaperclipIcon size={18} />
        </button>
        <HiddenFileInput inputRef={fileInput} testid="attach-file-input" onFiles={files} />
        <label className="sr-only" htmlFor="chat-input">
          {t.placeholder}
        </label>
        <textarea
          id="chat-input"
          ref={ref}
          data-testid="chat-input"
          rows={1}
          value={text}
          placeholder={t.placeholder}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              submit();
            }
          }}
          className="max-h-[200px] min-h-[44px] min-w-0 flex-1 resize-none rounded-xl border border-zinc-300 bg-white px-3 py-2.5 text-[15px] leading-snug shadow-sm outline-none placeholder:text-zinc-400 focus:border-blue-500 focus:ring-2 focus:ring-blue-500/20 dark:border-zinc-700 dark:bg-zinc-900"
        />
        {busy ? (
          <Button
            testid="stop"
            onClick={onStop}
            className="h-11 shrink-0 rounded-xl border border-zinc-300 px-4 text-sm font-medium hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800"
          >
            {t.stop}
          </Button>
        ) : (
          <button
            type="submit"
            data-testid="send"
            disabled={!text.trim() || !!attach.blocked}
            aria-describedby={attach.blocked ? noteId : undefined}
            className="h-11 shrink-0 rounded-xl bg-blue-600 px-4 text-sm font-medium text-white hover:bg-blue-700 disabled:opacity-40"
          >
            {t.send}
          </button>
        )}
      </SubmitForm>
      {note && (
        <p id={noteId} data-testid="attach-note" className="mx-auto mt-1 w-full max-w-3xl text-xs text-zinc-700 dark:text-zinc-300">
          {note}
        </p>
      )}
    </div>
  );
}
