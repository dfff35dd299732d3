"use client";

import { useEffect, useId, useRef, useState } from "react";
import { useLocale, useMessages } from "@/components/i18n";
import { PinIcon } from "@/components/icons";
import { SubmitForm } from "@/components/ui";
import { MAX_TITLE_CHARS } from "@/lib/conversations/schema";
import { type ConversationSummary, conversationApi } from "./conversations-api";
import { S } from "./share-strings";
import type { ChatText } from "./strings";

function Item({
  c,
  active,
  t,
  onOpen,
  onChanged,
  onDeleted,
}: {
  c: ConversationSummary;
  active: boolean;
  t: ChatText;
  onOpen: (id: string) => void;
  onChanged: (focusPinOf?: string) => void;
  onDeleted: (id: string) => void;
}) {
  const locale = useLocale();
  const s = useMessages(S);
  const [mode, setMode] = useState<"view" | "rename" | "delete">("view");
  const [title, setTitle] = useState(c.title);
  const inputId = useId();

  if (mode === "rename") {
    return (
      <li data-testid="conversation-item" data-id={c.id}>
        <SubmitForm
          className="flex flex-col gap-1 rounded-lg bg-zinc-100 p-2 dark:bg-zinc-800"
          onSubmit={async () => {
            if (!title.trim()) return;
            await conversationApi.update(c.id, { title: title.trim() }).catch(() => null);
            setMode("view");
            onChanged();
          }}
        >
          <label htmlFor={inputId} className="text-xs text-zinc-700 dark:text-zinc-300">
            {t.renameLabel}
          </label>
          <input
            id={inputId}
            data-testid="conversation-title-input"
            // biome-ignore lint/a11y/noAutofocus: the user just asked to rename this item
            autoFocus
            value={title}
            maxLength={MAX_TITLE_CHARS}
            onChange={(e) => setTitle(e.target.value)}
            onKeyDown={(e) => e.key === "Escape" && setMode("view")}
            className="rounded border border-zinc-400 bg-white px-2 py-1 text-sm dark:border-zinc-600 dark:bg-zinc-900"
          />
          <div className="flex gap-2 text-xs">
            <button type="submit" data-testid="conversation-rename-save" className="rounded bg-blue-700 px-2 py-1 font-medium text-white">
              {t.save}
            </button>
            <button type="button" onClick={() => setMode("view")} className="rounded px-2 py-1 text-zinc-700 dark:text-zinc-300">
              {t.cancel}
            </button>
          </div>
        </SubmitForm>
      </li>
    );
  }

  return (
    <li
      data-testid="conversation-item"
      data-id={c.id}
      className={`group rounded-lg ${active ? "bg-blue-50 dark:bg-blue-950/50" : "hover:bg-zinc-100 dark:hover:bg-zinc-800"}`}
    >
      <button
        type="button"
        data-testid="conversation-open"
        aria-current={active ? "page" : undefined}
        onClick={() => onOpen(c.id)}
        className="block w-full min-w-0 px-2 pt-1.5 text-left text-sm"
      >
        <span data-testid="conversation-title" className="block truncate font-medium">
          {c.pinned && (
            <span data-testid="pinned-mark" title={s.pinned} className="mr-1">
              <PinIcon />
              <span className="sr-only">{s.pinned}: </span>
            </span>
          )}
          {c.title || t.untitled}
          {c.shared && (
            <span data-testid="shared-mark" title={s.sharedMark} className="ml-1 inline-flex align-[-2px] text-zinc-600 dark:text-zinc-400">
              <LinkIcon />
              <span className="sr-only"> ({s.sharedMark})</span>
            </span>
          )}
        </span>
        <span className="block text-[11px] text-zinc-600 dark:text-zinc-400">
          {new Date(c.updatedAt).toLocaleString(locale, { dateStyle: "medium", timeStyle: "short" })}
          {c.kbs.length > 0 ? ` · ${c.kbs.join(", ")}` : ""}
        </span>
      </button>
      {mode === "delete" ? (
        <fieldset className="flex min-w-0 items-center gap-2 px-2 pb-1.5 text-xs" aria-label={t.confirmDeleteConversation}>
          <span className="text-red-800 dark:text-red-300">{t.confirmDeleteConversation}</span>
          <button
            type="button"
            data-testid="conversation-delete-confirm"
            onClick={async () => {
              await conversationApi.remove(c.id).catch(() => null);
              onDeleted(c.id);
            }}
            className="rounded bg-red-700 px-2 py-0.5 font-medium text-white"
          >
            {t.delete}
          </button>
          <button type="button" onClick={() => setMode("view")} className="rounded px-2 py-0.5 text-zinc-700 dark:text-zinc-300">
            {t.cancel}
          </button>
        </fieldset>
      ) : (
        <div className="flex gap-3 px-2 pb-1.5 text-xs text-zinc-600 dark:text-zinc-400">
          <button
            type="button"
            data-testid="pin-conversation"
            aria-pressed={Boolean(c.pinned)}
            aria-label={`${c.pinned ? s.unpin : s.pin}: ${c.title || t.untitled}`}
            onClick={async () => {
              await conversationApi.pin(c.id, !c.pinned).catch(() => null);
              onChanged(c.id);
            }}
            className="hover:text-zinc-900 hover:underline dark:hover:text-zinc-100"
          >
            {c.pinned ? s.unpin : s.pin}
          </button>
          <button
            type="button"
            data-testid="conversation-rename"
            aria-label={`${t.rename}: ${c.title || t.untitled}`}
            onClick={() => {
              setTitle(c.title);
              setMode("rename");
            }}
            className="hover:text-zinc-900 hover:underline dark:hover:text-zinc-100"
          >
            {t.rename}
          </button>
          <button
            type="button"
            data-testid="conversation-delete"
            aria-label={`${t.delete}: ${c.title || t.untitled}`}
            onClick={() => setMode("delete")}
            className="hover:text-red-800 hover:underline dark:hover:text-red-300"
          >
            {t.delete}
          </button>
        </div>
      )}
    </li>
  );
}

/** A chain link drawn as an SVG (emoji need a font many machines lack): the conversation has a share link. */
function LinkIcon() {
  return (
    <svg
      aria-hidden="true"
      viewBox="0 0 24 24"
      width="13"
      height="13"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      strokeLinecap="round"
      strokeLinejoin="round"
    >
      <path d="M10 13a5 5 0 0 0 7.5.5l3-3a5 5 0 0 0-7-7l-1.7 1.7M14 11a5 5 0 0 0-7.5-.5l-3 3a5 5 0 0 0 7 7l1.7-1.7" />
    </svg>
  );
}

/** Saved conversations, pinned ones first: search, reopen, pin, rename, delete. `version` changes when the list must be re-read. */
export function ConversationList({
  activeId,
  version,
  t,
  onOpen,
  onDeleted,
}: {
  activeId: string | null;
  version: number;
  t: ChatText;
  onOpen: (id: string) => void;
  onDeleted: (id: string) => void;
}) {
  const [q, setQ] = useState("");
  const [list, setList] = useState<ConversationSummary[] | null>(null);
  const [bump, setBump] = useState(0);
  // The conversation whose pin was pressed: its item moves (pinned ones come first), and its pin button keeps the focus.
  const focusPinOf = useRef<string | null>(null);
  const listRef = useRef<HTMLUListElement>(null);
  useEffect(() => {
    const id = focusPinOf.current;
    if (!list || !id) return;
    focusPinOf.current = null;
    const items = listRef.current?.querySelectorAll<HTMLElement>('[data-testid="conversation-item"]') ?? [];
    for (const item of items) if (item.dataset.id === id) item.querySelector<HTMLElement>('[data-testid="pin-conversation"]')?.focus();
  }, [list]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: reload when the list changes (version) or is asked to (bump)
  useEffect(() => {
    let live = true;
    const timer = setTimeout(
      () => {
        conversationApi
          .list(q.trim() || undefined)
          .then((r) => live && setList(r.conversations))
          .catch(() => live && setList([]));
      },
      q ? 200 : 0,
    );
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [q, version, bump]);

  return (
    <div data-testid="conversation-list" className="flex h-full flex-col">
      <h2 className="px-3 pt-3 text-sm font-semibold">{t.history}</h2>
      <div className="p-3 pb-2">
        <input
          aria-label={t.searchConversations}
          type="search"
          data-testid="conversation-search"
          value={q}
          onChange={(e) => setQ(e.target.value)}
          placeholder={t.searchConversations}
          className="w-full rounded-lg border border-zinc-400 bg-white px-2 py-1.5 text-sm placeholder:text-zinc-600 dark:border-zinc-600 dark:bg-zinc-900 dark:placeholder:text-zinc-400"
        />
      </div>
      <ul ref={listRef} className="flex-1 space-y-1 overflow-y-auto px-2 pb-3">
        {list?.map((c) => (
          <Item
            key={`${c.id}:${c.title}:${c.pinned}:${c.shared}`}
            c={c}
            active={c.id === activeId}
            t={t}
            onOpen={onOpen}
            onChanged={(pinned) => {
              focusPinOf.current = pinned ?? null;
              setBump((b) => b + 1);
            }}
            onDeleted={(id) => {
              setList((l) => l?.filter((x) => x.id !== id) ?? null);
              onDeleted(id);
            }}
          />
        ))}
        {!list &&
          [0, 1, 2].map((i) => (
            <li
              key={i}
              data-testid="history-loading"
              aria-hidden="true"
              className="mx-2 h-7 animate-pulse rounded-lg bg-zinc-100 dark:bg-zinc-800"
            />
          ))}
        {list && list.length === 0 && (
          <li className="px-2 py-1 text-sm text-zinc-600 dark:text-zinc-400">{q ? t.noConversationMatch : t.noConversations}</li>
        )}
      </ul>
    </div>
  );
}
