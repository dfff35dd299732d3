"use client";

import Link from "next/link";
import { useEffect, useState } from "react";
import { ApiError, apiFetch } from "@/components/api";
import { useMessages } from "@/components/i18n";
import type { ChatUIMessage } from "@/lib/agent/protocol";
import type { SharedConversation as Shared } from "@/lib/conversations/schema";
import { ConversationDocument } from "./ConversationDocument";
import { S } from "./share-strings";

type State = { conversation: Shared } | { error: number } | null;

/** The page a share link opens: the conversation read-only, or why it cannot be shown (404 revoked, 403 no access). */
export function SharedConversation({ token }: { token: string }) {
  const s = useMessages(S);
  const [state, setState] = useState<State>(null);
  useEffect(() => {
    apiFetch<{ conversation: Shared }>(`/api/shared/${encodeURIComponent(token)}`)
      .then((r) => setState({ conversation: r.conversation }))
      .catch((err) => setState({ error: err instanceof ApiError ? err.status : 0 }));
  }, [token]);
  return (
    <div className="min-h-dvh">
      <header className="flex items-center gap-3 border-b border-zinc-200 px-4 py-2 print:hidden dark:border-zinc-800">
        <span data-testid="shared-badge" className="text-sm font-medium">
          {s.sharedBadge}
        </span>
        <Link href="/" className="ml-auto text-sm text-blue-800 underline dark:text-blue-300">
          {s.openApp}
        </Link>
      </header>
      <main id="main">
        {state && "conversation" in state && (
          <ConversationDocument title={state.conversation.title} messages={state.conversation.messages as unknown as ChatUIMessage[]} />
        )}
        {state && "error" in state && (
          <p role="alert" data-testid="shared-error" data-status={state.error} className="mx-auto max-w-3xl px-4 py-8">
            {state.error === 403 ? s.sharedForbidden : state.error === 404 ? s.sharedMissing : s.sharedFailed}
          </p>
        )}
      </main>
    </div>
  );
}
