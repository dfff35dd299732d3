"use client";

import { useChat } from "@ai-sdk/react";
import { DefaultChatTransport } from "ai";
import Link from "next/link";
import { useEffect, useRef, useState } from "react";
import { AddDocumentsButton, DocumentDropZone } from "@/components/documents/DocumentDropZone";
import { ConnectButton } from "@/components/connect/ConnectButton";
import { useMessages } from "@/components/i18n";
import { KbFilter } from "@/components/kbs/KbFilter";
import { authHeaders } from "@/components/kbs/api";
import type { ChatUIMessage } from "@/lib/agent/protocol";
import { Composer } from "./Composer";
import { EmptyState } from "./EmptyState";
import { ErrorNotice } from "./ErrorNotice";
import { MessageView, messageAnswerText } from "./MessageView";
import { fill, T } from "./strings";

// Headers are resolved per request, so an admin token entered later is used without a reload.
const transport = new DefaultChatTransport<ChatUIMessage>({ api: "/api/chat", headers: () => authHeaders() });

export function Chat({ offline, model }: { offline: boolean; model?: string }) {
  const t = useMessages(T);
  const { messages, sendMessage, status, stop, error, regenerate, setMessages, clearError } = useChat<ChatUIMessage>({ transport });
  // Knowledge bases the chat searches (empty = all), sent with every request.
  const [kbs, setKbs] = useState<string[]>([]);
  const busy = status === "submitted" || status === "streaming";
  const scroller = useRef<HTMLDivElement>(null);
  const pinnedToBottom = useRef(true);

  useEffect(() => {
    const el = scroller.current;
    if (el && pinnedToBottom.current) el.scrollTop = el.scrollHeight;
  }, [messages, status, error]);

  const send = (text: string) => {
    if (busy) return;
    if (error) clearError();
    pinnedToBottom.current = true;
    void sendMessage({ text }, { body: { kbs } });
  };
  const retry = () => {
    if (busy) return;
    if (error) clearError();
    void regenerate({ body: { kbs } });
  };
  const newChat = () => {
    if (busy) void stop();
    clearError();
    setMessages([]);
  };

  const last = messages.at(-1);
  const waitingForFirstPart = status === "submitted" && last?.role === "user";

  return (
    <DocumentDropZone>
      <div className="flex h-dvh flex-col">
        <header className="flex flex-wrap items-center gap-x-3 gap-y-1 border-b border-zinc-200 px-3 py-2 sm:px-5 dark:border-zinc-800">
          <h1 className="text-base font-semibold">{t.title}</h1>
          {offline ? (
            <span
              data-testid="offline-badge"
              title={t.offlineNote}
              className="rounded-full bg-amber-100 px-2 py-0.5 text-[11px] font-medium text-amber-900 dark:bg-amber-900/40 dark:text-amber-200"
            >
              {t.offlineBadge}
            </span>
          ) : (
            model && (
              <span className="hidden rounded-full bg-zinc-100 px-2 py-0.5 text-[11px] text-zinc-600 sm:inline dark:bg-zinc-800 dark:text-zinc-300">
                {fill(t.modelBadge, { model })}
              </span>
            )
          )}
          <nav className="ml-auto flex min-w-0 flex-wrap items-center justify-end gap-x-2 gap-y-1 text-sm">
            {messages.length > 0 && (
              <button
                type="button"
                data-testid="new-chat"
                onClick={newChat}
                className="rounded-lg px-2 py-1 text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"
              >
                {t.newChat}
              </button>
            )}
            <KbFilter value={kbs} onChange={setKbs} />
            <AddDocumentsButton />
            <ConnectButton />
            <Link href="/faq" data-testid="faq-link" className="rounded-lg px-2 py-1 text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800">
              FAQ
            </Link>
            <Link
              href="/documents"
              data-testid="documents-link"
              className="rounded-lg px-2 py-1 text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"
            >
              {t.documents}
            </Link>
          </nav>
        </header>
        {offline && (
          <p
            data-testid="offline-note"
            className="border-b border-amber-200 bg-amber-50 px-3 py-1.5 text-center text-xs text-amber-900 dark:border-amber-900/50 dark:bg-amber-950/40 dark:text-amber-200"
          >
            {t.offlineNote}
          </p>
        )}
        <div
          ref={scroller}
          onScroll={(e) => {
            const el = e.currentTarget;
            pinnedToBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
          }}
          className="flex-1 overflow-y-auto"
        >
          <div data-testid="messages" className="mx-auto flex max-w-3xl flex-col gap-6 px-3 py-6 sm:px-5">
            {messages.length === 0 && <EmptyState t={t} onAsk={send} />}
            {messages.map((m, i) => (
              <MessageView
                key={m.id}
                m={m}
                t={t}
                streaming={busy && i === messages.length - 1 && m.role === "assistant"}
                isLast={i === messages.length - 1}
                onRetry={retry}
                question={m.role === "assistant" && messages[i - 1]?.role === "user" ? messageAnswerText(messages[i - 1]) : undefined}
              />
            ))}
            {waitingForFirstPart && <p className="animate-pulse text-sm text-zinc-500">{t.thinking}</p>}
            {error && <ErrorNotice error={error} t={t} onRetry={retry} />}
          </div>
        </div>
        <footer className="border-t border-zinc-200 px-3 pt-3 pb-[max(0.75rem,env(safe-area-inset-bottom))] sm:px-5 dark:border-zinc-800">
          <Composer busy={busy} onSend={send} onStop={() => void stop()} t={t} />
          <p className="mx-auto mt-1.5 hidden max-w-3xl text-[11px] text-zinc-400 sm:block">{t.keyHint}</p>
        </footer>
      </div>
    </DocumentDropZone>
  );
}
