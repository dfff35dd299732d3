"use client";

import Link from "next/link";
import { useCallback, useEffect, useState } from "react";
import { ConnectDialog } from "@/components/connect/ConnectDialog";
import type { ShareInfo } from "@/components/connect/share-info";
import { AddDocumentsButton } from "@/components/documents/DocumentDropZone";
import { UploadProvider, useDocumentUploads } from "@/components/documents/UploadContext";
import { UploadTray } from "@/components/documents/UploadTray";
import { useMessages } from "@/components/i18n";
import { searchToolBase } from "@/lib/kb/names";
import { ApiError, getAdminToken, setAdminToken } from "@/components/api";
import { kbApi } from "./api";
import type { KnowledgeBase } from "@/lib/kb/types";
import { fill, T, type KbMessages } from "./messages";
import { TokenList } from "./TokenList";

const input =
  "w-full rounded-md border border-zinc-300 bg-transparent px-2.5 py-1.5 text-sm dark:border-zinc-700 focus:outline-none focus:ring-2 focus:ring-sky-500";
const button = "rounded-md border border-zinc-300 px-2.5 py-1 text-sm hover:bg-zinc-100 disabled:opacity-50 dark:border-zinc-700 dark:hover:bg-zinc-800";
const primary = "rounded-md bg-sky-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-sky-800 disabled:opacity-50";

function errorText(err: unknown, t: KbMessages, fallback: string): string {
  if (err instanceof ApiError) return err.status === 0 ? t.networkError : err.message || fallback;
  return fallback;
}

/** A knowledge-base name from free text: "HR Policies" → "hr-policies" (empty when nothing Latin is left). */
export function slugName(text: string): string {
  return text
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^a-z0-9_-]+/g, "-")
    .replace(/^[-_]+/, "")
    .replace(/-+$/, "")
    .slice(0, 40);
}

function CreateKbForm({ t, onCreated, onError }: { t: KbMessages; onCreated: () => void; onError: (e: unknown) => void }) {
  const [name, setName] = useState("");
  // The name follows the title until the user types a name of their own.
  const [nameEdited, setNameEdited] = useState(false);
  const [title, setTitle] = useState("");
  const [description, setDescription] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      data-testid="create-kb-form"
      className="grid gap-3 rounded-lg border border-zinc-200 p-4 sm:grid-cols-2 dark:border-zinc-800"
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setError(null);
        try {
          await kbApi.create({ name: name.trim(), title: title.trim() || undefined, description: description.trim() || undefined });
          setName("");
          setNameEdited(false);
          setTitle("");
          setDescription("");
          onCreated();
        } catch (err) {
          onError(err);
          setError(errorText(err, t, t.loadFailed));
        } finally {
          setBusy(false);
        }
      }}
    >
      <h2 className="text-base font-semibold sm:col-span-2">{t.newKb}</h2>
      <label className="text-sm">
        <span className="mb-1 block">{t.name}</span>
        <input
          data-testid="kb-name"
          required
          value={name}
          maxLength={40}
          pattern="[a-z0-9][a-z0-9_\-]{0,39}"
          onChange={(e) => {
            setNameEdited(true);
            setName(e.target.value.toLowerCase().replace(/\s+/g, "-").replace(/[^a-z0-9_-]/g, "").replace(/^[-_]+/, ""));
          }}
          className={`${input} font-mono`}
          aria-describedby="kb-name-hint"
        />
        <span id="kb-name-hint" className="mt-1 block text-xs text-zinc-600 dark:text-zinc-400">
          {t.nameHint}
        </span>
      </label>
      <label className="text-sm">
        <span className="mb-1 block">{t.title}</span>
        <input
          data-testid="kb-title"
          value={title}
          maxLength={100}
          onChange={(e) => {
            setTitle(e.target.value);
            if (!nameEdited) setName(slugName(e.target.value));
          }}
          className={input}
        />
      </label>
      <label className="text-sm sm:col-span-2">
        <span className="mb-1 block">{t.description}</span>
        <textarea
          data-testid="kb-description"
          value={description}
          maxLength={1000}
          rows={2}
          placeholder={t.descriptionHint}
          onChange={(e) => setDescription(e.target.value)}
          className={input}
        />
      </label>
      <div className="sm:col-span-2">
        <button type="submit" data-testid="create-kb" disabled={busy || !name.trim()} className={primary}>
          {busy ? t.creating : t.create}
        </button>
        {error && (
          <p role="alert" className="mt-2 text-sm text-red-600 dark:text-red-400">
            {error}
          </p>
        )}
      </div>
    </form>
  );
}

function KbCard({
  kb,
  t,
  onChanged,
  onConnect,
  onError,
}: {
  kb: KnowledgeBase;
  t: KbMessages;
  onChanged: () => void;
  onConnect: () => void;
  onError: (e: unknown) => void;
}) {
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [form, setForm] = useState({ name: kb.name, title: kb.title, description: kb.description });

  async function run(fn: () => Promise<unknown>) {
    setBusy(true);
    setError(null);
    try {
      await fn();
      setEditing(false);
      setConfirming(false);
      onChanged();
    } catch (err) {
      onError(err);
      setError(errorText(err, t, t.loadFailed));
    } finally {
      setBusy(false);
    }
  }

  return (
    <li data-testid="kb-card" data-kb={kb.name} className="rounded-lg border border-zinc-200 p-4 dark:border-zinc-800">
      {editing ? (
        <form
          className="grid gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            const patch: { name?: string; title?: string; description?: string } = {};
            if (form.name.trim() !== kb.name) patch.name = form.name.trim();
            if (form.title !== kb.title) patch.title = form.title;
            if (form.description !== kb.description) patch.description = form.description;
            if (Object.keys(patch).length === 0) return setEditing(false);
            void run(() => kbApi.update(kb.name, patch));
          }}
        >
          <label className="text-sm">
            <span className="mb-1 block">{t.name}</span>
            <input
              data-testid="kb-edit-name"
              value={form.name}
              disabled={kb.isDefault}
              maxLength={40}
              onChange={(e) => setForm({ ...form, name: e.target.value.toLowerCase() })}
              className={`${input} font-mono`}
            />
            {!kb.isDefault && <span className="mt-1 block text-xs text-zinc-600 dark:text-zinc-400">{t.renameNote}</span>}
          </label>
          <label className="text-sm">
            <span className="mb-1 block">{t.title}</span>
            <input data-testid="kb-edit-title" value={form.title} maxLength={100} onChange={(e) => setForm({ ...form, title: e.target.value })} className={input} />
          </label>
          <label className="text-sm">
            <span className="mb-1 block">{t.description}</span>
            <textarea
              data-testid="kb-edit-description"
              value={form.description}
              rows={3}
              maxLength={1000}
              placeholder={t.descriptionHint}
              onChange={(e) => setForm({ ...form, description: e.target.value })}
              className={input}
            />
          </label>
          <div className="flex gap-2">
            <button type="submit" data-testid="kb-save" disabled={busy} className={primary}>
              {busy ? t.saving : t.save}
            </button>
            <button type="button" onClick={() => setEditing(false)} className={button}>
              {t.cancel}
            </button>
          </div>
        </form>
      ) : (
        <>
          <div className="flex flex-wrap items-baseline gap-x-2 gap-y-1">
            <h3 className="text-base font-semibold">{kb.title || kb.name}</h3>
            {kb.title && kb.title !== kb.name && <code className="text-xs text-zinc-600 dark:text-zinc-400">{kb.name}</code>}
            {kb.isDefault && (
              <span className="rounded bg-zinc-100 px-1.5 py-0.5 text-xs text-zinc-600 dark:bg-zinc-800 dark:text-zinc-300">{t.defaultBadge}</span>
            )}
            <span data-testid="kb-count" className="ml-auto text-sm text-zinc-600 dark:text-zinc-400">
              {kb.documentCount} {kb.documentCount === 1 ? t.document : t.documents}
            </span>
          </div>
          <p className={`mt-1 text-sm ${kb.description ? "" : "italic text-zinc-600 dark:text-zinc-400"}`}>{kb.description || t.noDescription}</p>
          <p className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">
            {t.tool}: <code>{searchToolBase(kb.name)}</code>
          </p>
          <div className="mt-3 flex flex-wrap items-center gap-2">
            <button type="button" data-testid="kb-connect" onClick={onConnect} className={primary}>
              {t.connect}
            </button>
            <UploadProvider kb={kb.name}>
              <AddDocumentsButton className={button} />
            </UploadProvider>
            <button
              type="button"
              data-testid="kb-edit"
              onClick={() => {
                setForm({ name: kb.name, title: kb.title, description: kb.description });
                setEditing(true);
              }}
              className={button}
            >
              {t.edit}
            </button>
            {!kb.isDefault &&
              (confirming ? (
                <span className="flex flex-wrap items-center gap-2 text-sm">
                  <span>{fill(t.confirmDelete, { name: kb.name, count: kb.documentCount })}</span>
                  <button
                    type="button"
                    data-testid="kb-delete-confirm"
                    disabled={busy}
                    onClick={() => run(() => kbApi.remove(kb.name))}
                    className="rounded-md bg-red-600 px-2.5 py-1 text-sm text-white hover:bg-red-700 disabled:opacity-50"
                  >
                    {busy ? t.deleting : t.confirmDeleteYes}
                  </button>
                  <button type="button" onClick={() => setConfirming(false)} className={button}>
                    {t.cancel}
                  </button>
                </span>
              ) : (
                <button
                  type="button"
                  data-testid="kb-delete"
                  onClick={() => setConfirming(true)}
                  className="rounded-md px-2.5 py-1 text-sm text-red-700 hover:underline dark:text-red-400"
                >
                  {t.delete}
                </button>
              ))}
          </div>
        </>
      )}
      {error && (
        <p role="alert" className="mt-2 text-sm text-red-600 dark:text-red-400">
          {error}
        </p>
      )}
    </li>
  );
}

function AdminTokenPrompt({ t, onSet }: { t: KbMessages; onSet: () => void }) {
  const [value, setValue] = useState(getAdminToken());
  return (
    <form
      className="mb-6 flex flex-wrap items-end gap-2 rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm dark:border-amber-700 dark:bg-amber-950"
      onSubmit={(e) => {
        e.preventDefault();
        setAdminToken(value.trim());
        onSet();
      }}
    >
      <p className="w-full">{t.adminNeeded}</p>
      <label className="min-w-0 flex-1">
        <span className="sr-only">{t.adminToken}</span>
        <input type="password" data-testid="admin-token" value={value} placeholder={t.adminToken} onChange={(e) => setValue(e.target.value)} className={input} />
      </label>
      <button type="submit" className={primary}>
        {t.useAdminToken}
      </button>
    </form>
  );
}

type Load = { state: "loading" } | { state: "ready"; kbs: KnowledgeBase[]; requireToken: boolean } | { state: "error"; message: string };

/** The /kbs page: list, create, describe, rename, delete knowledge bases; upload into one; connect; tokens. */
export function KbManager({ share }: { share?: ShareInfo } = {}) {
  const t = useMessages(T);
  const { version } = useDocumentUploads();
  const [load, setLoad] = useState<Load>({ state: "loading" });
  const [needAdmin, setNeedAdmin] = useState(false);
  const [connect, setConnect] = useState<{ kb: string | null } | null>(null);
  const [tokensVersion, setTokensVersion] = useState(0);

  const onError = useCallback((err: unknown) => {
    if (err instanceof ApiError && (err.status === 401 || err.status === 403) && err.code !== "forbidden") setNeedAdmin(true);
  }, []);

  const refresh = useCallback(async () => {
    try {
      const r = await kbApi.list();
      setLoad({ state: "ready", kbs: r.kbs, requireToken: r.access.requireToken });
    } catch (err) {
      onError(err);
      setLoad({ state: "error", message: errorText(err, t, t.loadFailed) });
    }
  }, [t, onError]);

  useEffect(() => {
    void refresh();
  }, [refresh, version]);

  const kbs = load.state === "ready" ? load.kbs : [];
  return (
    <main className="mx-auto max-w-4xl p-4 sm:p-8">
      <header className="mb-2 flex flex-wrap items-center gap-3">
        <Link href="/" className="text-sm text-sky-700 hover:underline dark:text-sky-300">
          ← {t.backToChat}
        </Link>
        <Link href="/documents" className="text-sm text-sky-700 hover:underline dark:text-sky-300">
          {t.documentsLink}
        </Link>
        <Link href="/faq" data-testid="kbs-faq-link" className="text-sm text-sky-700 hover:underline dark:text-sky-300">
          FAQ
        </Link>
        <h1 className="w-full text-2xl font-semibold sm:order-first sm:w-auto sm:flex-1">{t.pageTitle}</h1>
        <button type="button" data-testid="connect-library" onClick={() => setConnect({ kb: null })} className={button}>
          {t.connectLibrary}
        </button>
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

      {load.state === "error" && (
        <p role="alert" className="mb-4 text-red-600 dark:text-red-400">
          {load.message}
        </p>
      )}
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

      <CreateKbForm t={t} onCreated={refresh} onError={onError} />

      <TokenList t={t} version={tokensVersion} onError={onError} />

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
