"use client";

import { useCallback, useEffect, useState } from "react";
import { apiErrorText } from "@/components/api";
import { useLocale } from "@/components/i18n";
import { ErrorLine } from "@/components/ui";
import type { PublicToken } from "@/lib/auth/token-types";
import { tokenApi } from "./api";
import { fill, type KbMessages } from "./messages";

/** The access tokens (never their secrets), with revoke. */
export function TokenList({ t, version, onError }: { t: KbMessages; version: number; onError: (e: unknown) => void }) {
  const locale = useLocale();
  const [tokens, setTokens] = useState<PublicToken[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);

  const refresh = useCallback(async () => {
    try {
      setTokens((await tokenApi.list()).tokens);
      setError(null);
    } catch (err) {
      onError(err);
      setError(apiErrorText(err, t.networkError, t.networkError));
    }
  }, [onError, t.networkError]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: reload when tokens change (version)
  useEffect(() => {
    void refresh();
  }, [refresh, version]);

  const date = (iso: string | null) => (iso ? new Date(iso).toLocaleString(locale === "zh" ? "zh-CN" : "en") : t.never);

  return (
    <section className="mt-8" aria-labelledby="tokens-title">
      <h2 id="tokens-title" className="text-lg font-semibold">
        {t.tokensTitle}
      </h2>
      <p className="mb-3 text-sm text-zinc-600 dark:text-zinc-400">{t.tokensIntro}</p>
      {error && <ErrorLine className="mb-2 text-sm">{error}</ErrorLine>}
      {tokens && tokens.length === 0 && <p className="text-sm text-zinc-600 dark:text-zinc-400">{t.noTokens}</p>}
      <ul
        data-testid="token-list"
        className="divide-y divide-zinc-100 rounded-lg border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800"
      >
        {tokens?.map((tok) => (
          <li
            key={tok.id}
            data-testid="token-row"
            data-token={tok.id}
            className={`flex flex-wrap items-center gap-x-3 gap-y-1 p-3 text-sm ${tok.revoked ? "bg-zinc-50 dark:bg-zinc-900" : ""}`}
          >
            <span className="font-medium">{tok.name}</span>
            <span className="rounded bg-zinc-100 px-1.5 py-0.5 text-xs dark:bg-zinc-800">
              {tok.scope === "read" ? t.scopeRead : t.scopeReadWrite}
            </span>
            <span className="text-xs text-zinc-600 dark:text-zinc-400">{tok.kb ?? t.allKbs}</span>
            <span className="text-xs text-zinc-600 dark:text-zinc-400">
              {t.created} {date(tok.createdAt)} · {t.lastUsed} {date(tok.lastUsedAt)}
            </span>
            <span className="ml-auto">
              {tok.revoked ? (
                <span className="text-xs text-zinc-600 dark:text-zinc-400">{t.revoked}</span>
              ) : confirming === tok.id ? (
                <span className="flex flex-wrap items-center gap-2">
                  <span className="text-xs">{fill(t.confirmRevoke, { name: tok.name })}</span>
                  <button
                    type="button"
                    data-testid="token-revoke-confirm"
                    onClick={async () => {
                      try {
                        await tokenApi.revoke(tok.id);
                      } catch (err) {
                        onError(err);
                      }
                      setConfirming(null);
                      void refresh();
                    }}
                    className="rounded-md bg-red-600 px-2 py-0.5 text-xs text-white hover:bg-red-700"
                  >
                    {t.revoke}
                  </button>
                  <button type="button" onClick={() => setConfirming(null)} className="text-xs hover:underline">
                    {t.cancel}
                  </button>
                </span>
              ) : (
                <button
                  type="button"
                  data-testid="token-revoke"
                  onClick={() => setConfirming(tok.id)}
                  className="text-xs text-red-700 hover:underline dark:text-red-400"
                >
                  {t.revoke}
                </button>
              )}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
