"use client";

import { useEffect, useRef, useState } from "react";
import { Button, SubmitForm } from "@/components/ui";
import type { ChatText } from "./strings";

/** The question box: Enter sends, Shift+Enter adds a line (and Enter while an IME is composing does neither). */
export function Composer({ busy, onSend, onStop, t }: { busy: boolean; onSend: (text: string) => void; onStop: () => void; t: ChatText }) {
  const [text, setText] = useState("");
  const ref = useRef<HTMLTextAreaElement>(null);

  // biome-ignore lint/correctness/useExhaustiveDependencies: resize the box whenever its text changes
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.style.height = "auto";
    el.style.height = `${Math.min(el.scrollHeight, 200)}px`;
  }, [text]);

  const submit = () => {
    if (busy || !text.trim()) return;
    onSend(text.trim());
    setText("");
  };

  return (
    <SubmitForm className="mx-auto flex w-full max-w-3xl items-end gap-2" onSubmit={submit}>
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
        className="max-h-[200px] min-h-[44px] flex-1 resize-none rounded-xl border border-zinc-300 bg-white px-3 py-2.5 text-[15px] leading-snug shadow-sm outline-none placeholder:text-zinc-400 focus:border-blue-500 focus:ring-2 focus:ring-blue-500/20 dark:border-zinc-700 dark:bg-zinc-900"
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
          disabled={!text.trim()}
          className="h-11 shrink-0 rounded-xl bg-blue-600 px-4 text-sm font-medium text-white hover:bg-blue-700 disabled:opacity-40"
        >
          {t.send}
        </button>
      )}
    </SubmitForm>
  );
}
