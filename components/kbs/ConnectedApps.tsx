"use client";

import { useCallback, useEffect, useState } from "react";
import { apiErrorText } from "@/components/api";
import { useLocale } from "@/components/i18n";
import { ErrorLine } from "@/components/ui";
import type { OAuthGrant } from "@/lib/auth/oauth/types";
import { grantApi } from "./api";
import { fill, type KbMessages } from "./messages";

/** The OAuth grants ("Connected apps"): client, access, knowledge bases, last use, with revoke. */
export function ConnectedApps({ t, version, onError }: { t: KbMessages; version: number; onError: (e: unknown) => void }) {
  const locale = useLocale();
  const [grants, setGrants] = useState<OAuthGrant[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);

  const refresh = useCallback(async () => {
    try {
      setGrants((await grantApi.list()).grants);
      setError(null);
    } catch (err) {
      onError(err);
      setError(apiErrorText(err, t.networkError, t.networkError));
    }
  }, [onError, t.networkError]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: reload when the admin token changes (version)
  useEffect(() => {
    void refresh();
  }, [refresh, version]);

  const date = (iso: string | null) => (iso ? new Date(iso).toLocaleString(locale === "zh" ? "zh-CN" : "en") : t.never);

  return (
    <section className="mt-8" aria-labelledby="apps-title">
      <h2 id="apps-title" className="text-lg font-semibold">
        {t.appsTitle}
      </h2>
      <p className="mb-3 text-sm text-zinc-600 dark:text-zinc-400">{t.appsIntro}</p>
      {error && <ErrorLine className="mb-2 text-sm">{error}</ErrorLine>}
      {grants && grants.length === 0 && <p className="text-sm text-zinc-600 dark:text-zinc-400">{t.noApps}</p>}
      <ul
        data-testid="app-list"
        className="divide-y divide-zinc-100 rounded-lg border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800"
      >
        {grants?.map((g) => (
          <li
            key={g.id}
            data-testid="app-row"
            data-grant={g.id}
            className={`flex flex-wrap items-center gap-x-3 gap-y-1 p-3 text-sm ${g.revoked ? "bg-zinc-50 dark:bg-zinc-900" : ""}`}
          >
            <span className="font-medium">{g.clientName}</span>
            <span className="rounded bg-zinc-100 px-1.5 py-0.5 text-xs dark:bg-zinc-800">
              {g.scope === "read" ? t.scopeRead : t.scopeReadWrite}
            </span>
            <span className="text-xs text-zinc-600 dark:text-zinc-400">{g.kbs.join(", ")}</span>
            <span className="break-all text-xs text-zinc-600 dark:text-zinc-400">{g.resource}</span>
            <span className="text-xs text-zinc-600 dark:text-zinc-400">
              {t.created} {date(g.createdAt)} · {t.lastUsed} {date(g.lastUsedAt)}
            </span>
            <span className="ml-auto">
              {g.revoked ? (
                <span className="text-xs text-zinc-600 dark:text-zinc-400">{t.revoked}</span>
              ) : confirming === g.id ? (
                <span className="flex flex-wrap items-center gap-2">
                  <span className="text-xs">{fill(t.confirmRevokeApp, { name: g.clientName })}</span>
                  <button
                    type="button"
                    data-testid="app-revoke-confirm"
                    onClick={async () => {
                      try {
                        await grantApi.revoke(g.id);
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
                  data-testid="app-revoke"
                  onClick={() => setConfirming(g.id)}
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
