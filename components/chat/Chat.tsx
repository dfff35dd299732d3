"use client";

import { useChat } from "@ai-sdk/react";
import { DefaultChatTransport } from "ai";
import Link from "next/link";
import { useCallback, useRef, useState } from "react";
import { AccountMenu } from "@/components/account/AccountMenu";
import { useAccess, useViewer } from "@/components/account/viewer";
import { authHeaders } from "@/components/api";
import { ConnectButton } from "@/components/connect/ConnectButton";
import type { ShareInfo } from "@/components/connect/share-info";
import { AddDocumentsButton, DocumentDropZone } from "@/components/documents/DocumentDropZone";
import { useLocale, useMessages } from "@/components/i18n";
import { KbFilter } from "@/components/kbs/KbFilter";
import { KbsLink } from "@/components/kbs/KbsLink";
import type { ChatUIMessage } from "@/lib/agent/protocol";
import { activePath, mergePath, normalizeTree, siblingsOf, switchTo } from "@/lib/conversations/branches";
import { withAttached } from "@/lib/tools/scope";
import { AT, useAttachments } from "./attachments";
import { Composer } from "./Composer";
import { ConversationList } from "./ConversationList";
import { type Branch, setConversationInUrl, useConversationSaving } from "./conversation-saving";
import { conversationApi } from "./conversations-api";
import { DocumentScope } from "./DocumentScope";
import { EmptyState } from "./EmptyState";
import { ErrorNotice } from "./ErrorNotice";
import { ExportDialog } from "./ExportDialog";
import { FollowUps } from "./FollowUps";
import { HistoryDrawer } from "./HistoryDrawer";
import { MessageView } from "./MessageView";
import { ModelPicker, useConversationModel } from "./ModelPicker";
import { messageAnswerText, questionBefore } from "./message-parts";
import { Shortcuts } from "./Shortcuts";
import { type OpenSource, SourceSidePanel } from "./SourceSidePanel";
import { type SourceViewer, SourceViewerContext } from "./source-viewer";
import { fill, T } from "./strings";
import { useArrival } from "./use-arrival";
import { useFollowScroll } from "./use-follow-scroll";
import type { Versions } from "./VersionSwitch";

// Headers are resolved per request, so an admin token entered later is used without a reload.
const transport = new DefaultChatTransport<ChatUIMessage>({ api: "/api/chat", headers: () => authHeaders() });

const NAV =
  "shrink-0 whitespace-nowrap rounded-lg px-2 py-1 text-sm text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800";

export function Chat({
  offline,
  model,
  share,
  maxUploadBytes,
}: {
  offline: boolean;
  model?: string;
  share?: ShareInfo;
  maxUploadBytes?: number;
}) {
  const t = useMessages(T);
  const at = useMessages(AT);
  const [stopped, setStopped] = useState<ReadonlySet<string>>(new Set());
  const { messages, sendMessage, status, stop, error, regenerate, setMessages, clearError } = useChat<ChatUIMessage>({
    transport,
    onFinish: ({ message, isAbort }) => {
      if (isAbort) setStopped((s) => new Set(s).add(message.id));
    },
  });
  // Every version of every turn (a tree, see lib/conversations/branches.ts); `messages` is the shown branch.
  const tree = useRef<Branch>([]);
  const { model: chosenModel, pick: pickModel, reset: resetModel } = useConversationModel(messages);
  const locale = useLocale();
  // Knowledge bases the chat searches (empty = all), sent with every request and saved with the conversation.
  const [kbs, setKbs] = useState<string[]>([]);
  // Documents the answers are limited to (empty = all): the sources picked for this conversation.
  const [documents, setDocuments] = useState<string[]>([]);
  const viewer = useViewer();
  const { canWrite, write } = useAccess();
  // Uploads from the chat go to the first chosen knowledge base the person may write to (a non-admin's own first one).
  const uploadKb = kbs.find(canWrite) ?? (viewer && viewer.role !== "admin" ? viewer.kbs[0] : undefined);
  // Until the viewer is known the paperclip is offered (the upload route decides anyway).
  const attachments = useAttachments(uploadKb, !viewer || (uploadKb ? canWrite(uploadKb) : write));
  const [historyOpen, setHistoryOpen] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  // How many of the opened conversation's picked documents were deleted from the library since.
  const [droppedDocuments, setDroppedDocuments] = useState(0);
  // The document opened from a citation, beside the chat (wide screens).
  const [source, setSource] = useState<OpenSource | null>(null);
  const closeSource = useCallback(() => setSource(null), []);
  // The turn to show after opening a conversation from an address with `#m-<answer id>` (Back from a document).
  const turnToShow = useRef<string | null>(null);
  const { scroller, content, pinnedToBottom, onScroll, followNext } = useFollowScroll(turnToShow, messages, status, error);
  const busy = status === "submitted" || status === "streaming";
  const { conversationId, feedback, listVersion, opened, closed, saveScope, rate, isOpen } = useConversationSaving({
    tree,
    messages,
    busy,
    kbs,
    documents,
  });

  const open = useCallback(
    async (id: string) => {
      try {
        const { conversation, removedDocuments } = await conversationApi.get(id);
        tree.current = normalizeTree(conversation.messages as unknown as ChatUIMessage[]);
        opened(id, tree.current, conversation.feedback);
        setMessages(activePath(tree.current));
        setKbs(conversation.kbs);
        setDocuments(conversation.documents ?? []);
        resetModel();
        // Documents deleted from the library since drop out of the saved sources, visibly.
        if (removedDocuments) saveScope({ documents: conversation.documents });
        setDroppedDocuments(removedDocuments);
        setNotice(null);
        pinnedToBottom.current = true;
      } catch {
        setNotice(t.conversationMissing);
        setConversationInUrl(null);
      }
    },
    [opened, setMessages, t.conversationMissing, resetModel, pinnedToBottom, saveScope],
  );

  const sourceViewer: SourceViewer = {
    conversationPath: conversationId ? `/?c=${encodeURIComponent(conversationId)}` : null,
    open: (next) => {
      if (!window.matchMedia("(min-width: 1024px)").matches) return false;
      setSource(next);
      return true;
    },
  };

  const changeKbs = useCallback(
    (next: string[]) => {
      setKbs(next);
      saveScope({ kbs: next });
    },
    [saveScope],
  );
  const changeDocuments = useCallback(
    (next: string[]) => {
      setDocuments(next);
      saveScope({ documents: next });
    },
    [saveScope],
  );

  /** A request's body; `scope`: the documents this question is limited to (each question records its own). */
  const body = (scope: string[]) => ({ kbs, documents: scope, locale, ...(chosenModel ? { model: chosenModel } : {}) });
  /** The scope a question was asked with (a question from before scopes were recorded: today's pick). */
  const scopeOf = (question?: ChatUIMessage) => question?.metadata?.documents ?? documents;
  const send = (text: string) => {
    if (busy || attachments.blocked) return;
    if (error) clearError();
    followNext();
    const attached = attachments.ready;
    const scope = withAttached(
      documents,
      attached.map((a) => a.id),
    );
    const metadata = { documents: scope, ...(attached.length ? { attachments: attached } : {}) };
    void sendMessage({ text, metadata }, { body: body(scope) });
    attachments.clear();
  };
  const sendRef = useRef(send);
  sendRef.current = send;
  useArrival(open, sendRef, turnToShow);
  /** A clicked example or follow-up is asked; the button goes away, so the question box takes the focus. */
  const askFromSuggestion = (text: string) => {
    send(text);
    document.getElementById("chat-input")?.focus();
  };
  /** Regenerating adds a version of the answer; the earlier ones (and the turns after them) stay. */
  const regenerateAnswer = (messageId?: string) => {
    if (busy) return;
    if (error) clearError();
    tree.current = mergePath(tree.current, messages);
    // What the earlier versions said, so the offline answerer offers the next-best passages instead.
    const avoid = messageId ? siblingsOf(tree.current, messageId).map(messageAnswerText) : [];
    const question = questionBefore(messages, messageId);
    void regenerate({ ...(messageId ? { messageId } : {}), body: { ...body(scopeOf(question)), ...(avoid.length ? { avoid } : {}) } });
  };
  /** An edited question is a new version of it: the original question and its answers stay. */
  const edit = (messageId: string, text: string) => {
    if (busy) return;
    if (error) clearError();
    tree.current = mergePath(tree.current, messages);
    const index = messages.findIndex((m) => m.id === messageId);
    // The edited question keeps the scope (and attachments) it was asked with.
    const original = messages[index];
    if (index >= 0) setMessages(messages.slice(0, index));
    pinnedToBottom.current = true;
    const scope = scopeOf(original);
    void sendMessage({ text, metadata: { ...original?.metadata, documents: scope } }, { body: body(scope) });
  };
  const shownTree = busy ? tree.current : mergePath(tree.current, messages);
  const versionsOf = (id: string): Versions | undefined => {
    const all = siblingsOf(shownTree, id);
    if (all.length < 2) return undefined;
    return {
      index: all.findIndex((m) => m.id === id),
      count: all.length,
      onShow: (i) => {
        if (busy || !all[i]) return;
        tree.current = switchTo(mergePath(tree.current, messages), all[i].id);
        setMessages(activePath(tree.current));
      },
    };
  };
  const newChat = () => {
    if (busy) void stop();
    clearError();
    setMessages([]);
    tree.current = [];
    resetModel();
    setDocuments([]);
    attachments.clear();
    closed();
    setNotice(null);
    setDroppedDocuments(0);
  };

  const searchHistory = () => {
    if (!window.matchMedia("(min-width: 1024px)").matches) setHistoryOpen(true);
    // The visible search box (the sidebar's, or the drawer's once it has opened).
    setTimeout(() => {
      const boxes = Array.from(document.querySelectorAll<HTMLInputElement>('[data-testid="conversation-search"]'));
      boxes.find((b) => b.offsetParent !== null)?.focus();
    }, 0);
  };

  const last = messages.at(-1);
  const waitingForFirstPart = status === "submitted" && last?.role === "user";
  const history = (
    <ConversationList
      activeId={conversationId}
      version={listVersion}
      t={t}
      onOpen={(id) => {
        if (busy) void stop();
        setHistoryOpen(false);
        void open(id);
      }}
      onDeleted={(id) => isOpen(id) && newChat()}
    />
  );

  return (
    <SourceViewerContext.Provider value={sourceViewer}>
      <DocumentDropZone kb={uploadKb} maxFileBytes={maxUploadBytes}>
        <div className="flex h-dvh flex-col">
          <Shortcuts t={t} onNewChat={newChat} onSearch={searchHistory} />
          <a
            href="#chat-input"
            className="sr-only z-50 rounded bg-blue-700 px-3 py-2 text-white focus:not-sr-only focus:absolute focus:top-2 focus:left-2"
          >
            {t.skipToInput}
          </a>
          <header
            data-testid="chat-header"
            className="flex flex-wrap items-center gap-x-2 gap-y-0.5 lg:flex-nowrap border-b border-zinc-200 px-2 py-1 sm:px-5 sm:py-1.5 dark:border-zinc-800"
          >
            <button
              type="button"
              data-testid="history-open"
              aria-expanded={historyOpen}
              aria-label={t.history}
              title={t.history}
              onClick={() => setHistoryOpen(true)}
              className={`${NAV} text-base lg:hidden`}
            >
              <span aria-hidden="true">☰</span>
            </button>
            <h1 className="truncate text-base font-semibold">{t.title}</h1>
            {offline ? (
              <span
                data-testid="offline-badge"
                title={t.offlineNote}
                className="rounded-full bg-amber-100 px-2 py-0.5 text-[11px] font-medium whitespace-nowrap text-amber-950 dark:bg-amber-900/60 dark:text-amber-100"
              >
                {t.offlineBadge}
              </span>
            ) : (
              model && (
                <span
                  data-testid="model-badge"
                  className="hidden min-w-0 max-w-[12rem] truncate whitespace-nowrap rounded-full bg-zinc-100 px-2 py-0.5 text-[11px] text-zinc-700 sm:inline dark:bg-zinc-800 dark:text-zinc-300"
                >
                  {fill(t.modelBadge, { model: chosenModel ?? model })}
                </span>
              )
            )}
            {conversationId && messages.length > 0 && !busy && (
              <ExportDialog conversationId={conversationId} messages={messages} className={NAV} />
            )}
            {messages.length > 0 && (
              <button type="button" data-testid="new-chat" onClick={newChat} className={`${NAV} ml-auto sm:order-last sm:ml-0`}>
                {t.newChat}
              </button>
            )}
            <nav
              aria-label={t.title}
              className="-mx-1 flex w-full min-w-0 items-center gap-x-1 text-sm sm:mx-0 sm:ml-auto sm:w-auto sm:justify-end lg:shrink"
            >
              <KbFilter value={kbs} onChange={changeKbs} />
              <AddDocumentsButton className={NAV} short />
              <ConnectButton className={NAV} share={share} />
              {/* On a phone the FAQ tab is reached from /kbs; the header stays one compact row of actions. */}
              <Link href="/faq" data-testid="faq-link" className={`${NAV} hidden sm:inline-block`}>
                {t.faq}
              </Link>
              <Link href="/notes" data-testid="notes-link" className={`${NAV} hidden sm:inline-block`}>
                {t.notes}
              </Link>
              <KbsLink className={NAV} />
              <Link href="/documents" data-testid="documents-link" className={NAV}>
                {t.documents}
              </Link>
              <AccountMenu compact />
            </nav>
          </header>
          {offline && (
            <p
              data-testid="offline-note"
              className="hidden border-b border-amber-200 bg-amber-50 px-3 py-1.5 text-center text-xs text-amber-950 sm:block dark:border-amber-900/50 dark:bg-amber-950/40 dark:text-amber-100"
            >
              {t.offlineNote}
            </p>
          )}
          <div className="flex min-h-0 flex-1">
            <aside aria-label={t.history} className="hidden w-64 shrink-0 border-r border-zinc-200 lg:block dark:border-zinc-800">
              {history}
            </aside>
            {historyOpen && (
              <HistoryDrawer t={t} nav={NAV} onClose={() => setHistoryOpen(false)}>
                {history}
              </HistoryDrawer>
            )}
            <main id="main" className="flex min-w-0 flex-1 flex-col">
              {/* The question box comes first in the DOM (Tab reaches it before the example questions), last on screen. */}
              <div className="order-last border-t border-zinc-200 px-3 pt-3 pb-[max(0.75rem,env(safe-area-inset-bottom))] sm:px-5 dark:border-zinc-800">
                <DocumentScope value={documents} onChange={changeDocuments} kbs={kbs} />
                <Composer busy={busy} onSend={send} onStop={() => void stop()} t={t} attach={attachments.composer} />
                <div className="mx-auto mt-1.5 flex max-w-3xl items-center gap-3">
                  <ModelPicker value={chosenModel} onChange={pickModel} disabled={busy} />
                  {attachments.libraryChoice}
                  <p className="hidden text-[11px] text-zinc-600 sm:block dark:text-zinc-400">{t.keyHint}</p>
                </div>
              </div>
              <div
                ref={scroller}
                // Only the reader's own scrolling unpins the view (see use-follow-scroll.ts).
                onScroll={onScroll}
                className="flex-1 overflow-y-auto"
              >
                <div ref={content} data-testid="messages" className="mx-auto flex max-w-3xl flex-col gap-6 px-3 py-6 sm:px-5">
                  {(notice || droppedDocuments > 0) && (
                    <p role="status" data-testid="chat-notice" className="rounded-lg bg-zinc-100 px-3 py-2 text-sm dark:bg-zinc-800">
                      {notice ?? fill(at.scopeDropped, { n: droppedDocuments })}
                    </p>
                  )}
                  {messages.length === 0 && <EmptyState t={t} onAsk={askFromSuggestion} scope={{ kbs, documents }} />}
                  {messages.map((m, i) => (
                    <MessageView
                      key={m.id}
                      m={m}
                      t={t}
                      busy={busy}
                      streaming={busy && i === messages.length - 1 && m.role === "assistant"}
                      feedback={feedback[m.id]}
                      onRegenerate={regenerateAnswer}
                      onEdit={edit}
                      onFeedback={rate}
                      question={m.role === "assistant" && messages[i - 1]?.role === "user" ? messageAnswerText(messages[i - 1]) : undefined}
                      versions={busy ? undefined : versionsOf(m.id)}
                      stopped={stopped.has(m.id)}
                      sources={documents}
                    />
                  ))}
                  {!busy && <FollowUps message={last} onAsk={askFromSuggestion} />}
                  {waitingForFirstPart && <p className="animate-pulse text-sm text-zinc-600 dark:text-zinc-400">{t.thinking}</p>}
                  {error && <ErrorNotice error={error} t={t} onRetry={() => regenerateAnswer()} />}
                </div>
              </div>
            </main>
            {source && <SourceSidePanel source={source} onClose={closeSource} t={t} nav={NAV} />}
          </div>
        </div>
      </DocumentDropZone>
    </SourceViewerContext.Provider>
  );
}
