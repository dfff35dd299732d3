"use client";

import { createContext, useContext } from "react";

/** What "Open in document" needs from the chat: the side panel (wide screens) and where the full page's Back returns. */
export interface SourceViewer {
  /** Opens the passage beside the chat; false when the screen is too narrow (then the link opens the full page). */
  open: (source: { documentId: string; chunkId: string; claim?: string }) => boolean;
  /** The open conversation's address (`/?c=<id>`), or null before it is saved. */
  conversationPath: string | null;
}

export const SourceViewerContext = createContext<SourceViewer | null>(null);
/** The id of the answer a chunk card belongs to (the turn the full page's Back returns to). */
export const TurnContext = createContext<string | null>(null);

export function useSourceLink(): { viewer: SourceViewer | null; turn: string | null } {
  return { viewer: useContext(SourceViewerContext), turn: useContext(TurnContext) };
}
