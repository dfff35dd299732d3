"use client";

import { createContext, useContext, useMemo, useSyncExternalStore } from "react";
import { getUploadQueue, type UploadItem, type UploadQueue } from "./upload-queue";

interface UploadContextValue {
  queue: UploadQueue;
  /** Knowledge base new uploads go to (server default when undefined). */
  kb?: string;
}

const UploadContext = createContext<UploadContextValue | null>(null);

export function UploadProvider({ kb, children }: { kb?: string; children: React.ReactNode }) {
  return <UploadContext.Provider value={{ queue: getUploadQueue(), kb }}>{children}</UploadContext.Provider>;
}

const NO_ITEMS: UploadItem[] = [];

/** The upload queue: its items (re-rendering on change) and actions. Works outside a provider too. */
export function useDocumentUploads() {
  const ctx = useContext(UploadContext);
  const queue = ctx?.queue ?? getUploadQueue();
  const items = useSyncExternalStore(queue.subscribe, queue.getItems, () => NO_ITEMS);
  const version = useSyncExternalStore(queue.subscribe, queue.getVersion, () => 0);
  const kb = ctx?.kb;
  const actions = useMemo(
    () => ({
      addFiles: (files: Iterable<File>) => queue.add(files, kb),
      cancel: (id: string) => queue.cancel(id),
      dismiss: (id: string) => queue.dismiss(id),
      retry: (id: string) => queue.retry(id),
      canRetry: (id: string) => queue.canRetry(id),
      clearFinished: () => queue.clearFinished(),
    }),
    [queue, kb],
  );
  /** `version` is bumped each time a file got into the library. */
  return { items, version, ...actions };
}
