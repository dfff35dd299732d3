"use client";

import Link from "next/link";
import { useCallback, useEffect, useState } from "react";
import { AccountMenu } from "@/components/account/AccountMenu";
import { useAccess } from "@/components/account/viewer";
import { ApiError, apiErrorText } from "@/components/api";
import { ConnectDialog } from "@/components/connect/ConnectDialog";
import type { ShareInfo } from "@/components/connect/share-info";
import { useDocumentUploads } from "@/components/documents/UploadContext";
import { UploadTray } from "@/components/documents/UploadTray";
import { useMessages } from "@/components/i18n";
import { buttonClass, ErrorLine, navLinkClass } from "@/components/ui";
import type { KnowledgeBase } from "@/lib/kb/types";
import { AdminTokenPrompt } from "./AdminTokenPrompt";
import { kbApi } from "./api";
import { CreateKbForm } from "./CreateKbForm";
import { Credentials } from "./Credentials";
import { KbCard } from "./KbCard";
import { T } from "./messages";

type Load = { state: "loading" } | { state: "ready"; kbs: KnowledgeBase[]; requireToken: boolean } | { state: "error"; message: string };

/** The /kbs page: list, create, describe, rename, delete knowledge bases; upload into one; connect; tokens. */
export function KbManager({ share }: { share?: ShareInfo } = {}) {
  const t = useMessages(T);
  const { version } = useDocumentUploads();
  const [load, setLoad] = useState<Load>({ state: "loading" });
  const [needAdmin, setNeedAdmin] = useState(false);
  const [connect, setConnect] = useState<{ kb: string | null } | null>(null);
  const [tokensVersion, setTokensVersion] = useState(0);
  const { admin } = useAccess();

  const onError = useCallback((err: unknown) => {
    if (err instanceof ApiError && (err.status === 401 || err.status === 403) && err.code !== "forbidden") setNeedAdmin(true);
  }, []);

  const refresh = useCallback(async () => {
    try {
      const r = await kbApi.list();
      setLoad({ state: "ready", kbs: r.kbs, requireToken: r.access.requireToken });
    } catch (err) {
      onError(err);
      setLoad({ state: "error", message: apiErrorText(err, t.networkError, t.loadFailed) });
    }
  }, [t, onError]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: reload when an upload finishes (version)
  useEffect(() => {
    void refresh();
  }, [refresh, version]);

  const kbs = load.state === "ready" ? load.kbs : [];
  return (
    <main className="mx-auto max-w-4xl p-4 sm:p-8">
      <header className="mb-2 flex flex-wrap items-center gap-3">
        <Link href="/" className={navLinkClass}>
          ← {t.backToChat}
        </Link>
        <Link href="/documents" className={navLinkClass}>
          {t.documentsLink}
        </Link>
        <Link href="/faq" data-testid="kbs-faq-link" className={navLinkClass}>
          {t.faqLink}
        </Link>
        <h1 className="w-full text-2xl font-semibold sm:order-first sm:w-auto sm:flex-1">{t.pageTitle}</h1>
        <button type="button" data-testid="connect-library" onClick={() => setConnect({ kb: null })} className={buttonClass}>
          {t.connectLibrary}
        </button>
        <AccountMenu />
      </header>
      <p className="mb-6 text-sm text-zinc-600 dark:text-zinc-400">{t.intro}</p>

      {needAdmin && (
        <AdminTokenPrompt
          t={t}
          onSet={() => {
            setNeedAdmin(false);
            setTokensVersion((v) => v + 1);
            void refresh();
          }}
        />
      )}

      {load.state === "error" && <ErrorLine className="mb-4">{load.message}</ErrorLine>}
      {load.state === "loading" && <p className="mb-4 text-sm text-zinc-600 dark:text-zinc-400">{t.loading}</p>}

      <ul data-testid="kb-list" className="mb-6 grid gap-3">
        {kbs.map((kb) => (
          <KbCard
            key={`${kb.name}:${kb.updatedAt}`}
            kb={kb}
            t={t}
            onChanged={() => {
              void refresh();
              setTokensVersion((v) => v + 1);
            }}
            onConnect={() => setConnect({ kb: kb.name })}
            onError={onError}
          />
        ))}
      </ul>

      {admin && <CreateKbForm t={t} onCreated={refresh} onError={onError} />}

      <Credentials t={t} version={tokensVersion} onError={onError} />

      {connect && (
        <ConnectDialog
          initialKb={connect.kb}
          kbs={kbs}
          requireToken={load.state === "ready" ? load.requireToken : undefined}
          onClose={() => setConnect(null)}
          onTokenCreated={() => setTokensVersion((v) => v + 1)}
          share={share}
        />
      )}
      <UploadTray />
    </main>
  );
}
