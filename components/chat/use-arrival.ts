import { type RefObject, useEffect, useRef } from "react";

/**
 * Once, on arrival: opens the conversation the URL names (`?c=`) and remembers the turn to show (`#m-<answer id>`,
 * a Back from a document page); in a new chat, `?ask=<question>` (an overview's question on a document page) is
 * asked at once and taken out of the URL.
 */
export function useArrival(
  open: (id: string) => Promise<void>,
  ask: RefObject<(question: string) => void>,
  turnToShow: RefObject<string | null>,
) {
  const arrived = useRef(false);
  useEffect(() => {
    if (arrived.current) return;
    arrived.current = true;
    const url = new URL(window.location.href);
    const id = url.searchParams.get("c");
    turnToShow.current = url.hash.startsWith("#m-") ? url.hash.slice(1) : null;
    if (id) void open(id);
    const asked = url.searchParams.get("ask")?.trim();
    if (!id && asked) {
      url.searchParams.delete("ask");
      window.history.replaceState(window.history.state, "", `${url.pathname}${url.search}${url.hash}`);
      ask.current(asked);
    }
  }, [open, ask, turnToShow]);
}
