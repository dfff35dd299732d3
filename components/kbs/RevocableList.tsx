"use client";

import { type ReactNode, useCallback, useEffect, useState } from "react";
import { apiErrorText } from "@/components/api";
import { ConfirmButton } from "@/components/ConfirmButton";
import { useLocale } from "@/components/i18n";
import { ErrorLine } from "@/components/ui";
import { fill, type KbMessages } from "./messages";

/** What a revocable credential shows: access tokens and OAuth grants alike. */
export interface Revocable {
  id: string;
  name: string;
  scope: "read" | "read-write";
  revoked: boolean;
  createdAt: string;
  lastUsedAt: string | null;
}

/** What the page around a list hands it. */
export interface ListContext {
  t: KbMessages;
  /** Reloads when it changes (a new token, a new admin secret). */
  version: number;
  onError: (e: unknown) => void;
}

const LABELS = {
  token: (t: KbMessages) => ({ title: t.tokensTitle, intro: t.tokensIntro, empty: t.noTokens, confirm: t.confirmRevoke }),
  app: (t: KbMessages) => ({ title: t.appsTitle, intro: t.appsIntro, empty: t.noApps, confirm: t.confirmRevokeApp }),
};

const REVOKE_CLASSES = {
  trigger: "text-xs text-red-700 hover:underline dark:text-red-400",
  prompt: "flex flex-wrap items-center gap-2",
  yes: "rounded-md bg-red-600 px-2 py-0.5 text-xs text-white hover:bg-red-700",
  no: "text-xs hover:underline",
};

interface Props<T extends Revocable> extends ListContext {
  /** The section's id, its texts and the rows' test ids. */
  kind: keyof typeof LABELS;
  load(): Promise<T[]>;
  revoke(id: string): Promise<unknown>;
  /** What a row shows between its scope and its dates. */
  details(item: T): ReactNode;
}

/** A list of credentials (never their secrets), with revoke after a confirmation. */
export function RevocableList<T extends Revocable>({ t, version, onError, kind, load, revoke, details }: Props<T>) {
  const locale = useLocale();
  const { title, intro, empty, confirm } = LABELS[kind](t);
  const [items, setItems] = useState<T[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  const refresh = useCallback(async () => {
    try {
      setItems(await load());
      setError(null);
    } catch (err) {
      onError(err);
      setError(apiErrorText(err, t.networkError, t.networkError));
    }
  }, [load, onError, t.networkError]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: reload when the credentials change (version)
  useEffect(() => {
    void refresh();
  }, [refresh, version]);

  const date = (iso: string | null) => (iso ? new Date(iso).toLocaleString(locale === "zh" ? "zh-CN" : "en") : t.never);

  return (
    <section className="mt-8" aria-labelledby={`${kind}s-title`}>
      <h2 id={`${kind}s-title`} className="text-lg font-semibold">
        {title}
      </h2>
      <p className="mb-3 text-sm text-zinc-600 dark:text-zinc-400">{intro}</p>
      {error && <ErrorLine className="mb-2 text-sm">{error}</ErrorLine>}
      {items && items.length === 0 && <p className="text-sm text-zinc-600 dark:text-zinc-400">{empty}</p>}
      <ul
        data-testid={`${kind}-list`}
        className="divide-y divide-zinc-100 rounded-lg border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800"
      >
        {items?.map((item) => (
          <li
            key={item.id}
            data-testid={`${kind}-row`}
            data-id={item.id}
            className={`flex flex-wrap items-center gap-x-3 gap-y-1 p-3 text-sm ${item.revoked ? "bg-zinc-50 dark:bg-zinc-900" : ""}`}
          >
            <span className="font-medium">{item.name}</span>
            <span className="rounded bg-zinc-100 px-1.5 py-0.5 text-xs dark:bg-zinc-800">
              {item.scope === "read" ? t.scopeRead : t.scopeReadWrite}
            </span>
            {details(item)}
            <span className="text-xs text-zinc-600 dark:text-zinc-400">
              {t.created} {date(item.createdAt)} · {t.lastUsed} {date(item.lastUsedAt)}
            </span>
            <span className="ml-auto">
              {item.revoked ? (
                <span className="text-xs text-zinc-600 dark:text-zinc-400">{t.revoked}</span>
              ) : (
                <ConfirmButton
                  testid={`${kind}-revoke`}
                  label={t.revoke}
                  question={<span className="text-xs">{fill(confirm, { name: item.name })}</span>}
                  yes={t.revoke}
                  no={t.cancel}
                  onConfirm={async () => {
                    try {
                      await revoke(item.id);
                    } catch (err) {
                      onError(err);
                    }
                    void refresh();
                  }}
                  classes={REVOKE_CLASSES}
                />
              )}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
