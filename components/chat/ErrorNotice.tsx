"use client";

import { Button } from "@/components/ui";
import { parseChatError } from "@/lib/agent/protocol";
import { type ChatText, fill } from "./strings";

/** A failed turn as a message the user can act on, with a retry button. */
export function ErrorNotice({ error, t, onRetry }: { error: Error; t: ChatText; onRetry: () => void }) {
  const info = parseChatError(error.message);
  const code = info?.code ?? (/fetch|network|load failed/i.test(error.message) ? "network" : "internal");
  const template = (t as Record<string, string>)[`err_${code}`] ?? t.err_internal;
  const at = info?.detail && (code === "model_unreachable" || code === "mcp_unavailable") ? ` (${info.detail})` : "";
  const text = fill(template, { at, model: info?.detail ?? "", message: info?.detail ?? info?.message ?? "" });
  return (
    <div
      role="alert"
      data-testid="chat-error"
      data-code={code}
      className="flex flex-col gap-2 rounded-xl border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800 sm:flex-row sm:items-center dark:border-red-900 dark:bg-red-950/50 dark:text-red-200"
    >
      <span className="flex-1">{text}</span>
      <Button
        testid="retry-error"
        onClick={onRetry}
        className="self-start rounded-lg border border-red-300 px-3 py-1 text-xs font-medium hover:bg-red-100 sm:self-auto dark:border-red-800 dark:hover:bg-red-900/50"
      >
        {t.retry}
      </Button>
    </div>
  );
}
