"use client";

import { useEffect, useState } from "react";
import { copyText } from "@/components/api";
import { useMessages } from "@/components/i18n";
import { T } from "./messages";

/** A small "Copy" button that says "Copied" for a moment. */
export function CopyButton({ text, testId, label }: { text: string; testId?: string; label?: string }) {
  const t = useMessages(T);
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  useEffect(() => {
    if (state === "idle") return;
    const timer = setTimeout(() => setState("idle"), 2000);
    return () => clearTimeout(timer);
  }, [state]);
  return (
    <button
      type="button"
      data-testid={testId}
      aria-label={label ? `${t.copy}: ${label}` : t.copy}
      onClick={async () => setState((await copyText(text)) ? "copied" : "failed")}
      className="shrink-0 rounded-md border border-zinc-300 px-2.5 py-1 text-xs font-medium hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800"
    >
      <span aria-live="polite">{state === "copied" ? t.copied : state === "failed" ? t.copyFailed : t.copy}</span>
    </button>
  );
}
