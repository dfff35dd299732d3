"use client";

import { type RefObject, type UIEvent, useEffect, useRef } from "react";

/** When the reader last scrolled the chat themselves (one chat per page). */
const userScrolledAt = { current: 0 };
const markUserScroll = () => {
  userScrolledAt.current = Date.now();
};

/**
 * Follows the conversation as it grows (down to the last answer's sources and actions) unless the reader
 * scrolled up; after Back from a document, shows the turn the citation was opened from (`turnToShow`).
 * `messages`, `status`, `error`: what changes when the conversation grows.
 */
export function useFollowScroll(turnToShow: RefObject<string | null>, messages: unknown, status: unknown, error: unknown) {
  const scroller = useRef<HTMLDivElement>(null);
  const content = useRef<HTMLDivElement>(null);
  const pinnedToBottom = useRef(true);

  // biome-ignore lint/correctness/useExhaustiveDependencies: scroll again whenever the conversation grows
  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const turn = turnToShow.current && document.getElementById(turnToShow.current);
    if (turn) {
      turnToShow.current = null;
      pinnedToBottom.current = false;
      turn.scrollIntoView({ block: "start" });
      return;
    }
    if (!pinnedToBottom.current) return;
    el.scrollTop = el.scrollHeight;
    // The sources and the action row appear a moment after the text settles (layout, fonts): follow them too.
    const id = requestAnimationFrame(() => {
      if (pinnedToBottom.current) el.scrollTop = el.scrollHeight;
    });
    return () => cancelAnimationFrame(id);
  }, [messages, status, error]);
  // Whatever grows after a render (sources, the action row, fonts, highlighted code) is followed too.
  useEffect(() => {
    const el = scroller.current;
    const inner = content.current;
    if (!el || !inner) return;
    const observer = new ResizeObserver(() => {
      if (pinnedToBottom.current && !turnToShow.current) el.scrollTop = el.scrollHeight;
    });
    observer.observe(inner);
    // The reader's own scrolling (wheel, touch, keys, scrollbar): content growing between two renders must
    // not look like "scrolled up".
    const events = ["wheel", "touchmove", "keydown", "pointerdown"] as const;
    for (const e of events) el.addEventListener(e, markUserScroll, { passive: true });
    return () => {
      observer.disconnect();
      for (const e of events) el.removeEventListener(e, markUserScroll);
    };
  }, [turnToShow]);

  return {
    scroller,
    content,
    pinnedToBottom,
    /** Only the reader's own scrolling unpins the view. */
    onScroll: (e: UIEvent<HTMLDivElement>) => {
      if (Date.now() - userScrolledAt.current > 800) return;
      const el = e.currentTarget;
      pinnedToBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
    },
    /**
     * A new question is followed down to its answer: a click in the chat a moment ago (a citation) is not the
     * reader scrolling away, nor is a turn a source was opened from still to be shown.
     */
    followNext: () => {
      pinnedToBottom.current = true;
      userScrolledAt.current = 0;
      turnToShow.current = null;
    },
  };
}
