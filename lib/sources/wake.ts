/**
 * Tells the scheduler of this process about a source the moment it is added, so a folder is watched at once
 * (not from the next tick on). A registry of its own, so the service and the scheduler do not import each other.
 */
import { processGlobal } from "@/lib/process-global";
import type { SourceRecord } from "./store";

type Listener = (source: SourceRecord) => void;

const listeners = () => processGlobal("sourceAddedListeners", () => new Set<Listener>());

/** Calls `fn` for every source added from now on; returns what stops it. */
export function onSourceAdded(fn: Listener): () => void {
  listeners().add(fn);
  return () => listeners().delete(fn);
}

export function sourceAdded(source: SourceRecord): void {
  for (const fn of listeners()) fn(source);
}
