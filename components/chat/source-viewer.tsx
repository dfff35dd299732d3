"use client";

import Link from "next/link";
import { createContext, useContext } from "react";
import type { Citation } from "@/lib/agent/protocol";
import { withReturn } from "./source-links";
import { documentHref } from "./sources";

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

function useSourceLink(): { viewer: SourceViewer | null; turn: string | null } {
  return { viewer: useContext(SourceViewerContext), turn: useContext(TurnContext) };
}

/**
 * A link to a cited passage: on a wide screen it opens beside the chat (the chat stays as it is); on a phone
 * the full page, whose Back returns to this conversation and turn.
 */
export function SourceLink({
  citation: c,
  claim,
  onOpened,
  ...rest
}: {
  citation: Pick<Citation, "document" | "chunk_id" | "source_chunk_id">;
  claim?: string;
  /** After the document opened beside the chat. */
  onOpened?: () => void;
} & Omit<React.ComponentProps<"a">, "href" | "onClick">) {
  const { viewer, turn } = useSourceLink();
  // A FAQ entry taken from a document opens the passage it was taken from.
  const passage = { document: c.document, chunk_id: c.source_chunk_id ?? c.chunk_id };
  return (
    <Link
      {...rest}
      href={withReturn(documentHref(passage, claim), viewer?.conversationPath ?? null, turn)}
      onClick={(e) => {
        if (!viewer?.open({ documentId: passage.document.id, chunkId: passage.chunk_id, claim })) return;
        e.preventDefault();
        onOpened?.();
      }}
    />
  );
}
