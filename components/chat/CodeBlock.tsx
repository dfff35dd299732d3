"use client";

import { useRef, useState } from "react";
import { copyText } from "@/components/api";
import type { ChatText } from "./strings";

/** A fenced code block (highlighted by rehype-highlight) with a Copy button for its text. */
export function CodeBlock({ children, t }: { children?: React.ReactNode; t: ChatText }) {
  const pre = useRef<HTMLPreElement>(null);
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    if (await copyText(pre.current?.textContent ?? "")) {
      setCopied(true);
      setTimeout(() => setCopied(false), 1500);
    }
  };
  return (
    <div data-testid="code-block" className="group relative my-2">
      <button
        type="button"
        data-testid="copy-code"
        onClick={copy}
        className="absolute top-1.5 right-1.5 rounded border border-zinc-300 bg-white px-1.5 py-0.5 text-xs text-zinc-700 hover:bg-zinc-100 dark:border-zinc-600 dark:bg-zinc-900 dark:text-zinc-200 dark:hover:bg-zinc-800"
      >
        {copied ? t.copied : t.copyCode}
      </button>
      <pre ref={pre} className="overflow-x-auto rounded-lg bg-zinc-100 p-3 pr-16 text-[13px] dark:bg-zinc-900">
        {children}
      </pre>
    </div>
  );
}
