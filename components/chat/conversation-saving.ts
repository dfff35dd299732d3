"use client";

import { type RefObject, useCallback, useEffect, useRef, useState } from "react";
import type { ChatUIMessage } from "@/lib/agent/protocol";
import { mergePath, type normalizeTree } from "@/lib/conversations/branches";
import { conversationApi, type Feedback } from "./conversations-api";

export type Branch = ReturnType<typeof normalizeTree<ChatUIMessage>>;

/** A conversation id; crypto.randomUUID is missing on plain http (a LAN address), so there is a fallback. */
function newConversationId(): string {
  if (typeof crypto !== "undefined" && "randomUUID" in crypto) return crypto.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`;
}

/** The open conversation lives in the address (`?c=<id>`), so a reload or a shared link reopens it. */
export function setConversationInUrl(id: string | null) {
  const url = new URL(window.location.href);
  if (id) url.searchParams.set("c", id);
  else url.searchParams.delete("c");
  window.history.replaceState(window.history.state, "", url);
}

/**
 * Keeps the open conversation saved: created on the server once its first turn settles (its id then goes in
 * the address), saved again whenever a turn settles (answer finished, stopped or failed), and its knowledge
 * bases, picked documents and ratings saved as they change. The writes run one after another, so a rating never overtakes the
 * save of its answer. `tree`: every version of every turn (lib/conversations/branches.ts); `messages`: the
 * shown branch.
 */
export function useConversationSaving({
  tree,
  messages,
  busy,
  kbs,
  documents,
}: {
  tree: RefObject<Branch>;
  messages: ChatUIMessage[];
  busy: boolean;
  kbs: string[];
  documents: string[];
}) {
  const [conversationId, setConversationId] = useState<string | null>(null);
  const [feedback, setFeedback] = useState<Record<string, Feedback>>({});
  /** Bumped after every save, so the conversation list reloads. */
  const [listVersion, setListVersion] = useState(0);
  const idRef = useRef<string | null>(null);
  const savedJson = useRef("");
  const saving = useRef<Promise<unknown>>(Promise.resolve());

  /** Runs server writes one after another. */
  const queue = useCallback(<R>(fn: () => Promise<R>): Promise<R> => {
    const run = saving.current.then(fn, fn);
    saving.current = run.catch(() => undefined);
    return run;
  }, []);

  useEffect(() => {
    if (busy || messages.length === 0) return;
    tree.current = mergePath(tree.current, messages);
    const json = JSON.stringify(tree.current);
    if (json === savedJson.current) return;
    savedJson.current = json;
    const snapshot = tree.current;
    const scope = { kbs, documents };
    void queue(async () => {
      const id = idRef.current;
      if (id) await conversationApi.update(id, { messages: snapshot, ...scope });
      else {
        const created = newConversationId();
        idRef.current = created;
        setConversationId(created);
        setConversationInUrl(created);
        await conversationApi.create({ id: created, ...scope, messages: snapshot });
      }
      setListVersion((v) => v + 1);
    }).catch(() => {
      savedJson.current = ""; // try again after the next turn
    });
  }, [busy, messages, kbs, documents, queue, tree]);

  /** A conversation opened from the server: `saved` is what it holds, so nothing is saved until it changes. */
  const opened = useCallback((id: string, saved: Branch, savedFeedback: Record<string, Feedback>) => {
    idRef.current = id;
    savedJson.current = JSON.stringify(saved);
    setConversationId(id);
    setFeedback(savedFeedback);
    setConversationInUrl(id);
  }, []);

  /** A new chat: the next settled turn creates a new conversation. */
  const closed = useCallback(() => {
    setFeedback({});
    idRef.current = null;
    savedJson.current = "";
    setConversationId(null);
    setConversationInUrl(null);
  }, []);

  /** The open conversation's knowledge bases or picked documents changed. */
  const saveScope = useCallback(
    (next: { kbs?: string[]; documents?: string[] }) => {
      const id = idRef.current;
      if (id) void queue(() => conversationApi.update(id, next)).catch(() => {});
    },
    [queue],
  );

  const rate = useCallback(
    async (messageId: string, rating: "up" | "down" | null, note?: string) => {
      await queue(async () => {
        const id = idRef.current;
        if (!id) return;
        const r = await conversationApi.feedback(id, { messageId, rating, ...(note ? { note } : {}) });
        setFeedback(r.feedback);
      }).catch(() => {});
    },
    [queue],
  );

  const isOpen = (id: string) => id === idRef.current;

  return { conversationId, feedback, listVersion, opened, closed, saveScope, rate, isOpen };
}
