"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { apiErrorText } from "@/components/api";
import { ConfirmButton } from "@/components/ConfirmButton";
import { fill } from "@/components/fill";
import { useLocale, useMessages } from "@/components/i18n";
import { buttonClass, ErrorLine, Field, FormActions, inputClass, SubmitForm } from "@/components/ui";
import { useAction } from "@/components/use-action";
import type { SourceKind, SourceView } from "@/lib/sources/schema";
import { sourceApi } from "./api";
import { FeishuFields, feishuBody } from "./FeishuFields";
import { HOSTED_APIS, HostedFields, hostedBody } from "./HostedFields";
import { kindLabel, type SourceMessages, T } from "./messages";
import { syncErrorText } from "./sync-errors";

const POLL_MS = 1000;

const REMOVE_CLASSES = {
  trigger: "rounded-md px-2 py-0.5 text-xs text-red-700 hover:underline dark:text-red-400",
  prompt: "flex flex-wrap items-center gap-2 text-xs",
  yes: "rounded-md bg-red-600 px-2 py-0.5 text-xs text-white hover:bg-red-700 disabled:opacity-50",
  no: buttonClass,
};

function statusLine(s: SourceView, t: SourceMessages, locale: "en" | "zh"): string {
  if (s.running) return fill(t.syncing, s.running);
  const r = s.lastRun;
  if (!r) return t.neverSynced;
  const time = new Date(r.finishedAt ?? r.startedAt).toLocaleString();
  if (r.error) return fill(t.lastSyncFailed, { time, error: syncErrorText(r.error, locale) });
  const { added, updated, unchanged, removed } = r;
  return fill(t.lastSync, { time, added, updated, unchanged, removed, failed: r.failed.length + (r.failedUnlisted ?? 0) });
}

/** Items of the last run, each with its reason (skipped or failed), folded under `summary`. */
function RunItems({ summary, items, testid }: { summary: string; items: { item: string; reason: string }[]; testid?: string }) {
  return (
    <details className="text-xs" data-testid={testid}>
      <summary>{summary}</summary>
      <ul>
        {items.map((f) => (
          <li key={f.item} className="break-all">
            {f.item}: {f.reason}
          </li>
        ))}
      </ul>
    </details>
  );
}

/** A knowledge base's sources (web sites, Git repositories, buckets, folders, WebDAV drives): status, Sync now, remove, add. */
export function SourcesPanel({ kb, canWrite, admin, onChanged }: { kb: string; canWrite: boolean; admin: boolean; onChanged(): void }) {
  const t = useMessages(T);
  const locale = useLocale();
  const [sources, setSources] = useState<SourceView[] | null>(null);
  const [adding, setAdding] = useState(false);
  const action = useAction((err) => apiErrorText(err, t.networkError, t.failed));
  const wasRunning = useRef(false);
  const changed = useRef(onChanged);
  changed.current = onChanged;

  const load = useCallback(async () => {
    const { sources } = await sourceApi.list(kb);
    setSources(sources);
    const running = sources.some((s) => s.running);
    // A run that ended changed the documents: the card's count follows.
    if (wasRunning.current && !running) changed.current();
    wasRunning.current = running;
    return running;
  }, [kb]);

  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      const running = await load().catch(() => false);
      if (live && running) timer = setTimeout(tick, POLL_MS);
    };
    void tick();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [load]);

  const poll = async () => {
    while (await load().catch(() => false)) await new Promise((r) => setTimeout(r, POLL_MS));
  };
  const act = (fn: () => Promise<unknown>) =>
    action.run(async () => {
      await fn();
      void poll();
    });

  return (
    <section data-testid="kb-sources" className="mt-3 border-t border-zinc-200 pt-2 dark:border-zinc-800">
      <div className="flex items-center gap-2">
        <h4 className="text-sm font-medium">{t.sources}</h4>
        {canWrite && !adding && (
          <button type="button" data-testid="source-add" className={`${buttonClass} ml-auto`} onClick={() => setAdding(true)}>
            {t.addSource}
          </button>
        )}
      </div>
      {sources && sources.length === 0 && !adding && (
        <p className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">{canWrite ? t.noSources : t.noSourcesReader}</p>
      )}
      <ul className="mt-1 space-y-2">
        {sources?.map((s) => (
          <li key={s.id} data-testid="source" data-kind={s.kind} className="text-sm">
            <div className="flex flex-wrap items-center gap-2">
              <span className="font-medium break-all">{s.name}</span>
              <span className="text-xs text-zinc-600 dark:text-zinc-400">
                <span data-testid="source-kind-label">{kindLabel(t, s.kind)}</span> · {fill(t.documentsCount, { count: s.documents })} ·{" "}
                {s.scheduleMinutes ? fill(t.every, { minutes: s.scheduleMinutes }) : t.onDemand}
              </span>
              {canWrite && (
                <span className="ml-auto flex items-center gap-1">
                  <button
                    type="button"
                    data-testid="source-sync"
                    className={buttonClass}
                    disabled={!!s.running || action.busy}
                    onClick={() => void act(() => sourceApi.sync(kb, s.id))}
                  >
                    {t.syncNow}
                  </button>
                  <ConfirmButton
                    testid="source-remove"
                    label={t.remove}
                    question={<span>{fill(t.confirmRemove, { name: s.name, count: s.documents })}</span>}
                    yes={action.busy ? t.removing : t.confirmRemoveYes}
                    no={t.cancel}
                    onConfirm={() => act(() => sourceApi.remove(kb, s.id)).then((ok) => (ok ? onChanged() : false))}
                    disabled={action.busy}
                    classes={REMOVE_CLASSES}
                  />
                </span>
              )}
            </div>
            <p data-testid="source-status" role="status" className="text-xs text-zinc-600 dark:text-zinc-400">
              {statusLine(s, t, locale)}
            </p>
            {canWrite && !s.running && !!s.lastRun?.needsConfirmation && (
              <p className="flex flex-wrap items-center gap-2 text-xs">
                <span>{fill(t.confirmNote, { count: s.lastRun.needsConfirmation })}</span>
                <button
                  type="button"
                  data-testid="source-confirm"
                  className={buttonClass}
                  disabled={action.busy}
                  onClick={() => void act(() => sourceApi.confirm(kb, s.id))}
                >
                  {t.confirmAll}
                </button>
              </p>
            )}
            {!s.running && !!s.lastRun?.notes?.length && (
              <RunItems testid="source-notes" summary={t.skippedItems} items={s.lastRun.notes} />
            )}
            {!s.running && s.lastRun && s.lastRun.failed.length > 0 && <RunItems summary={t.failedItems} items={s.lastRun.failed} />}
          </li>
        ))}
      </ul>
      {adding && (
        <AddSourceForm
          t={t}
          admin={admin}
          busy={action.busy}
          onCancel={() => setAdding(false)}
          onAdd={(body) =>
            void act(async () => {
              await sourceApi.add(kb, body);
              setAdding(false);
            })
          }
        />
      )}
      {action.error && <ErrorLine>{action.error}</ErrorLine>}
    </section>
  );
}

/** Kinds read through a hosted service's API (no URL of their own: an id, a credential, the API's address). */

function AddSourceForm({
  t,
  admin,
  busy,
  onAdd,
  onCancel,
}: {
  t: SourceMessages;
  admin: boolean;
  busy: boolean;
  onAdd(body: Record<string, unknown>): void;
  onCancel(): void;
}) {
  const [kind, setKind] = useState<SourceKind>("web");
  const submit = (form: HTMLFormElement) => {
    const f = new FormData(form);
    const get = (k: string) => String(f.get(k) ?? "").trim();
    const body: Record<string, unknown> = { kind, scheduleMinutes: Number(get("scheduleMinutes") || 60) };
    if (kind === "folder") body.path = get("path");
    else if (kind === "feishu") Object.assign(body, feishuBody(get, String(f.get("password") ?? "")));
    else if (!HOSTED_APIS.includes(kind)) body.url = get("url");
    if (kind === "web") Object.assign(body, { mode: get("mode"), maxPages: Number(get("maxPages") || 200) });
    if (kind === "git") {
      body.branch = get("branch") || "main";
      body.paths = get("paths")
        .split(",")
        .map((p) => p.trim())
        .filter(Boolean);
      if (get("token")) body.token = get("token");
    }
    if (kind === "s3") {
      if (get("endpoint")) body.endpoint = get("endpoint");
      Object.assign(body, { accessKeyId: get("accessKeyId"), secretAccessKey: get("secretAccessKey") });
    }
    if (kind === "webdav" || kind === "imap") Object.assign(body, { username: get("username"), password: String(f.get("password") ?? "") });
    // A wiki is read anonymously unless a bot password is given.
    if (kind === "mediawiki" && get("username"))
      Object.assign(body, { username: get("username"), password: String(f.get("password") ?? "") });
    Object.assign(
      body,
      hostedBody(kind, get, (k) => String(f.get(k) ?? "")),
    );
    onAdd(body);
  };
  const kinds: [SourceKind, string][] = [
    ["web", t.kindWeb],
    ["git", t.kindGit],
    ["s3", t.kindS3],
    ["webdav", t.kindWebdav],
    ["imap", t.kindImap],
    ["mediawiki", t.kindMediawiki],
    ["confluence", t.kindConfluence],
    ["notion", t.kindNotion],
    ["google-drive", t.kindGoogleDrive],
    ["sharepoint", t.kindSharepoint],
    ["feishu", t.kindFeishu],
    ...(admin ? [["folder", t.kindFolder] as [SourceKind, string]] : []),
  ];
  return (
    <SubmitForm testid="source-form" className="mt-2 grid gap-2 sm:grid-cols-2" onSubmit={submit}>
      <Field label={t.kind}>
        <select data-testid="source-kind" value={kind} onChange={(e) => setKind(e.target.value as SourceKind)} className={inputClass}>
          {kinds.map(([k, label]) => (
            <option key={k} value={k}>
              {label}
            </option>
          ))}
        </select>
      </Field>
      {kind === "feishu" ? (
        <FeishuFields t={t} />
      ) : kind === "folder" ? (
        <Field label={t.folderPath}>
          <input name="path" data-testid="source-path" required className={inputClass} />
        </Field>
      ) : HOSTED_APIS.includes(kind) ? null : (
        <Field label={t.url}>
          <input
            name="url"
            data-testid="source-url"
            required
            className={inputClass}
            placeholder={
              kind === "s3"
                ? "s3://bucket/prefix"
                : kind === "webdav"
                  ? "https://cloud.example.com/remote.php/dav/files/me/Team/"
                  : kind === "confluence"
                    ? "https://example.atlassian.net/wiki · https://confluence.example.com"
                    : "https://"
            }
          />
        </Field>
      )}
      {kind === "web" && (
        <>
          <Field label={t.mode}>
            <select name="mode" data-testid="source-mode" defaultValue="site" className={inputClass}>
              <option value="site">{t.modeSite}</option>
              <option value="page">{t.modePage}</option>
              <option value="sitemap">{t.modeSitemap}</option>
            </select>
          </Field>
          <Field label={t.maxPages}>
            <input name="maxPages" type="number" min={1} max={5000} defaultValue={200} className={inputClass} />
          </Field>
        </>
      )}
      {kind === "git" && (
        <>
          <Field label={t.branch}>
            <input name="branch" data-testid="source-branch" defaultValue="main" className={inputClass} />
          </Field>
          <Field label={t.paths}>
            <input name="paths" data-testid="source-paths" className={inputClass} placeholder="docs" />
          </Field>
          <Field label={t.token}>
            <input name="token" type="password" autoComplete="off" className={inputClass} />
          </Field>
        </>
      )}
      {kind === "s3" && (
        <>
          <Field label={t.endpoint}>
            <input name="endpoint" className={inputClass} />
          </Field>
          <Field label={t.accessKeyId}>
            <input name="accessKeyId" required autoComplete="off" className={inputClass} />
          </Field>
          <Field label={t.secretAccessKey}>
            <input name="secretAccessKey" type="password" required autoComplete="off" className={inputClass} />
          </Field>
        </>
      )}
      {(kind === "webdav" || kind === "imap") && (
        <>
          <Field label={t.username}>
            <input name="username" data-testid="source-username" required autoComplete="off" className={inputClass} />
          </Field>
          <Field label={t.password}>
            <input name="password" data-testid="source-password" type="password" required autoComplete="off" className={inputClass} />
          </Field>
        </>
      )}
      {kind === "mediawiki" && (
        <>
          <Field label={t.botUsername}>
            <input name="username" data-testid="source-username" autoComplete="off" className={inputClass} />
          </Field>
          <Field label={t.botPassword}>
            <input name="password" data-testid="source-password" type="password" autoComplete="off" className={inputClass} />
          </Field>
        </>
      )}
      <HostedFields t={t} kind={kind} />
      {(kind === "webdav" ||
        kind === "imap" ||
        kind === "mediawiki" ||
        kind === "s3" ||
        kind === "git" ||
        kind === "confluence" ||
        kind === "feishu" ||
        HOSTED_APIS.includes(kind)) && (
        <p data-testid="source-credential-note" className="text-xs text-zinc-600 sm:col-span-2 dark:text-zinc-400">
          {t.credentialNote}
        </p>
      )}
      <Field label={t.schedule}>
        <input name="scheduleMinutes" type="number" min={0} defaultValue={60} className={inputClass} />
      </Field>
      <FormActions
        testid="source-submit"
        className="flex items-end gap-2 sm:col-span-2"
        busy={busy}
        label={t.add}
        busyLabel={t.adding}
        cancelLabel={t.cancel}
        onCancel={onCancel}
      />
    </SubmitForm>
  );
}
