"use client";

import Link from "next/link";
import { useEffect, useState } from "react";
import { ApiError, apiFetch } from "@/components/api";
import { useMessages } from "@/components/i18n";
import type { ChatUIMessage } from "@/lib/agent/protocol";
import type { SharedConversation as Shared } from "@/lib/conversations/schema";
import { ConversationDocument } from "./ConversationDocument";
import { S } from "./share-strings";
import { fill } from "./strings";

type ShareText = Record<keyof (typeof S)["en"], string>;

type State = { conversation: Shared } | { error: number; kbs?: string[]; sharedBy?: string } | null;

/** `detail` of a refusal: the knowledge bases the reader lacks and who shared the link (lib/conversations/shares.ts). */
function refusal(err: ApiError): { kbs?: string[]; sharedBy?: string } {
  const kbs = err.detail?.kbs;
  const by = err.detail?.sharedBy;
  return {
    ...(Array.isArray(kbs) ? { kbs: kbs.filter((k): k is string => typeof k === "string") } : {}),
    ...(typeof by === "string" ? { sharedBy: by } : {}),
  };
}

/** Why a reader may not see the conversation: which knowledge bases they lack, and whom to ask. */
function forbiddenText(s: ShareText, state: { kbs?: string[]; sharedBy?: string }): string {
  const who = state.sharedBy ? fill(s.askSharer, { name: state.sharedBy }) : s.askAdmin;
  const kbs = state.kbs ?? [];
  return kbs.length ? fill(s.sharedForbidden, { kbs: kbs.map((k) => `“${k}”`).join(", "), who }) : fill(s.sharedForbiddenUnknown, { who });
}

/** The page a share link opens: the conversation read-only, or why it cannot be shown (404 revoked; no access: which knowledge base and whom to ask). */
export function SharedConversation({ token }: { token: string }) {
  const s = useMessages(S);
  const [state, setState] = useState<State>(null);
  useEffect(() => {
    apiFetch<{ conversation: Shared }>(`/api/shared/${encodeURIComponent(token)}`)
      .then((r) => setState({ conversation: r.conversation }))
      .catch((err) => setState(err instanceof ApiError ? { error: err.status, ...refusal(err) } : { error: 0 }));
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
            {state.error === 403 ? forbiddenText(s, state) : state.error === 404 ? s.sharedMissing : s.sharedFailed}
          </p>
        )}
      </main>
    </div>
  );
}
