"use client";

import { useEffect, useState } from "react";
import { apiFetch } from "@/components/api";
import { useMessages } from "@/components/i18n";
import type { ShareLinkSummary } from "@/lib/conversations/schema";
import { S } from "./share-strings";
import { fill } from "./strings";

export const sharePath = (id: string) => `/api/conversations/${encodeURIComponent(id)}/share`;

/**
 * The owner's share links, every conversation's (GET /api/shares), each with its conversation's title and a
 * button that revokes it. `version` changes when a link was made or revoked elsewhere in the dialog;
 * `onRevoked` tells the dialog which conversation's link went.
 */
export function ShareLinks({ version, onRevoked }: { version: number; onRevoked(conversationId: string): void }) {
  const s = useMessages(S);
  const [links, setLinks] = useState<ShareLinkSummary[] | null>(null);
  const [reload, setReload] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `version` and `reload` are what asks for a fresh list
  useEffect(() => {
    let live = true;
    apiFetch<{ shares: ShareLinkSummary[] }>("/api/shares")
      .then((r) => live && setLinks(r.shares))
      .catch(() => live && setLinks([]));
    return () => {
      live = false;
    };
  }, [version, reload]);
  if (!links) return null;
  return (
    <details data-testid="share-links" className="mt-4 text-sm">
      <summary className="cursor-pointer font-semibold">{fill(s.yourLinks, { n: links.length })}</summary>
      {links.length === 0 ? (
        <p className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">{s.noLinks}</p>
      ) : (
        <ul className="mt-1 max-h-48 space-y-1 overflow-y-auto">
          {links.map((l) => (
            <li key={l.token} data-testid="share-link-item" data-conversation={l.conversationId} className="flex items-center gap-2">
              <a href={`/shared/${l.token}`} className="min-w-0 flex-1 truncate text-blue-800 underline dark:text-blue-300">
                {l.title || l.conversationId}
              </a>
              <button
                type="button"
                data-testid="share-link-revoke"
                aria-label={fill(s.revokeFor, { title: l.title || l.conversationId })}
                onClick={async () => {
                  await apiFetch(sharePath(l.conversationId), { method: "DELETE" }).catch(() => null);
                  setReload((n) => n + 1);
                  onRevoked(l.conversationId);
                }}
                className="rounded border border-zinc-300 px-2 py-0.5 text-xs text-red-800 hover:bg-zinc-100 dark:border-zinc-700 dark:text-red-300 dark:hover:bg-zinc-800"
              >
                {s.revoke}
              </button>
            </li>
          ))}
        </ul>
      )}
    </details>
  );
}
