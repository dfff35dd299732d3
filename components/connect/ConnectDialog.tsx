"use client";

import { useEffect, useId, useMemo, useRef, useState } from "react";
import { useAccess } from "@/components/account/viewer";
import { apiErrorText } from "@/components/api";
import { useMessages } from "@/components/i18n";
import { kbApi, tokenApi } from "@/components/kbs/api";
import { KbOptions } from "@/components/kbs/KbOptions";
import { ErrorLine, Field, inputClass, primaryButtonClass, Tabs } from "@/components/ui";
import { MAX_TOKEN_NAME_CHARS } from "@/lib/credentials/token-types";
import { type ClientId, connectSnippets, mcpEndpoint } from "@/lib/kb/connect";
import type { KnowledgeBase } from "@/lib/kb/types";
import { CopyButton } from "./CopyButton";
import { T } from "./messages";
import type { ShareInfo } from "./share-info";

export interface ConnectDialogProps {
  /** Knowledge base to share at first; null/undefined = the whole library. */
  initialKb?: string | null;
  /** Knowledge bases to choose from; loaded from /api/kbs when omitted. */
  kbs?: Pick<KnowledgeBase, "name" | "title">[];
  /** Whether the server requires tokens (placeholders in configs); loaded with the kbs when omitted. */
  requireToken?: boolean;
  onClose: () => void;
  /** Called after a token was created (e.g. to refresh a token list). */
  onTokenCreated?: () => void;
  /** How the server can be reached from other machines (from the page's server side). */
  share?: ShareInfo;
}

/** The share panel: the MCP URL (library or one knowledge base), a token, and per-client configurations. */
const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/i;

export function ConnectDialog({
  initialKb,
  kbs: givenKbs,
  requireToken: givenRequire,
  onClose,
  onTokenCreated,
  share,
}: ConnectDialogProps) {
  const t = useMessages(T);
  const titleId = useId();
  const closeRef = useRef<HTMLButtonElement>(null);
  const dialogRef = useRef<HTMLDivElement>(null);
  const [kbs, setKbs] = useState(givenKbs ?? []);
  const [requireToken, setRequireToken] = useState(givenRequire ?? false);
  const [kb, setKb] = useState<string>(initialKb ?? "");
  const [origin, setOrigin] = useState("");
  const [localOnly, setLocalOnly] = useState(false);
  const [tokenName, setTokenName] = useState(t.tokenNameDefault);
  const [scope, setScope] = useState<"read" | "read-write">("read");
  const access = useAccess();
  const [limit, setLimit] = useState(true);
  const [secret, setSecret] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [client, setClient] = useState<ClientId>("claude-desktop");

  const onCloseRef = useRef(onClose);
  onCloseRef.current = onClose;
  useEffect(() => {
    // Opened at a loopback address while the server also listens on the LAN: share the LAN address.
    const here = window.location;
    const lan = share?.lanHosts[0];
    setOrigin(LOOPBACK.test(here.hostname) && lan ? `${here.protocol}//${lan}${here.port ? `:${here.port}` : ""}` : here.origin);
    setLocalOnly(LOOPBACK.test(here.hostname) && !lan);
    // Focus moves into the dialog, and back to what opened it on close.
    const opener = document.activeElement as HTMLElement | null;
    closeRef.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") return onCloseRef.current();
      if (e.key !== "Tab" || !dialogRef.current) return;
      // Focus stays inside the dialog: Tab from the last control goes to the first, Shift+Tab the other way.
      const focusable = [
        ...dialogRef.current.querySelectorAll<HTMLElement>(
          'a[href], button:not([disabled]), input:not([disabled]), select, textarea, [tabindex]:not([tabindex="-1"])',
        ),
      ].filter((el) => el.offsetParent !== null);
      if (focusable.length === 0) return;
      const first = focusable[0];
      const last = focusable[focusable.length - 1];
      const inside = dialogRef.current.contains(document.activeElement);
      if (e.shiftKey && (document.activeElement === first || !inside)) {
        e.preventDefault();
        last.focus();
      } else if (!e.shiftKey && (document.activeElement === last || !inside)) {
        e.preventDefault();
        first.focus();
      }
    };
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("keydown", onKey);
      opener?.focus?.();
    };
  }, [share]);

  useEffect(() => {
    if (givenKbs && givenRequire !== undefined) return;
    kbApi
      .list()
      .then((r) => {
        if (!givenKbs) setKbs(r.kbs);
        if (givenRequire === undefined) setRequireToken(r.access.requireToken);
      })
      .catch(() => {});
  }, [givenKbs, givenRequire]);

  const url = origin ? mcpEndpoint(origin, kb || null) : "";
  const snippets = useMemo(
    () => (url ? connectSnippets({ url, kb: kb || null, token: secret, requireToken }) : []),
    [url, kb, secret, requireToken],
  );
  const snippet = snippets.find((s) => s.id === client);

  async function createToken(e: React.FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const res = await tokenApi.create({ name: tokenName.trim() || t.tokenNameDefault, scope, kb: kb && limit ? kb : null });
      setSecret(res.secret);
      onTokenCreated?.();
    } catch (err) {
      setError(apiErrorText(err, t.tokenFailed, t.tokenFailed));
    } finally {
      setBusy(false);
    }
  }

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: a click on the backdrop closes the dialog; Escape does too
    <div
      className="fixed inset-0 z-50 flex items-start justify-center overflow-y-auto bg-black/40 p-2 sm:p-6"
      onMouseDown={(e) => e.target === e.currentTarget && onClose()}
    >
      <div
        ref={dialogRef}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        data-testid="connect-dialog"
        className="w-full max-w-2xl rounded-lg bg-white p-4 shadow-xl dark:bg-zinc-900 sm:p-6"
      >
        <header className="mb-4 flex items-center gap-3">
          <h2 id={titleId} className="flex-1 text-lg font-semibold">
            {t.title}
          </h2>
          <button
            ref={closeRef}
            type="button"
            onClick={onClose}
            aria-label={t.close}
            data-testid="connect-close"
            className="rounded-md px-2 py-1 text-zinc-600 hover:bg-zinc-100 dark:hover:bg-zinc-800 dark:text-zinc-400"
          >
            ✕
          </button>
        </header>

        <label className="mb-3 block text-sm">
          <span className="mb-1 block font-medium">{t.scope}</span>
          <select
            data-testid="connect-scope"
            value={kb}
            onChange={(e) => {
              setKb(e.target.value);
              setSecret(null);
            }}
            className={inputClass}
          >
            <option value="">{t.wholeLibrary}</option>
            <KbOptions kbs={kbs} />
          </select>
        </label>

        <div className="mb-5">
          <span className="mb-1 block text-sm font-medium">{t.urlLabel}</span>
          <div className="flex items-center gap-2">
            <input
              readOnly
              data-testid="mcp-url"
              value={url}
              onFocus={(e) => e.currentTarget.select()}
              className={`${inputClass} font-mono`}
              aria-label={t.urlLabel}
            />
            <CopyButton text={url} testId="copy-url" label={t.urlLabel} />
          </div>
          <p data-testid="share-note" className="mt-1.5 text-xs text-zinc-700 dark:text-zinc-300">
            {localOnly ? t.localOnly : share?.lanHosts.length ? t.lanShared : ""}{" "}
            {localOnly ? t.howToShare : share && !share.requireToken ? t.shareNeedsTokens : ""}
          </p>
        </div>

        <section className="mb-5 rounded-md border border-zinc-200 p-3 dark:border-zinc-800">
          <h3 className="text-sm font-semibold">{t.tokenTitle}</h3>
          <p className="mb-3 text-xs text-zinc-600 dark:text-zinc-400">{requireToken ? t.tokenRequired : t.tokenOptional}</p>
          {secret ? (
            <div>
              <p className="mb-2 text-xs text-amber-800 dark:text-amber-300">{t.secretOnce}</p>
              <div className="flex items-center gap-2">
                <code
                  data-testid="token-secret"
                  className="min-w-0 flex-1 break-all rounded bg-zinc-100 px-2 py-1.5 font-mono text-xs dark:bg-zinc-800"
                >
                  {secret}
                </code>
                <CopyButton text={secret} testId="copy-token" label={t.tokenTitle} />
              </div>
              <button
                type="button"
                data-testid="create-another-token"
                onClick={() => {
                  setSecret(null);
                  setTokenName(t.tokenNameDefault);
                }}
                className="mt-3 rounded-md border border-zinc-300 px-3 py-1.5 text-sm font-medium hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800"
              >
                {t.createAnother}
              </button>
            </div>
          ) : (
            <form onSubmit={createToken} className="grid gap-3 sm:grid-cols-2">
              <Field label={t.tokenName}>
                <input
                  data-testid="token-name"
                  value={tokenName}
                  maxLength={MAX_TOKEN_NAME_CHARS}
                  onChange={(e) => setTokenName(e.target.value)}
                  className={inputClass}
                />
              </Field>
              <fieldset className="text-sm">
                <legend className="mb-1">{t.scopeLabel}</legend>
                {(["read", "read-write"] as const)
                  .filter((s) => s === "read" || (kb && limit ? access.canWrite(kb) : access.write))
                  .map((s) => (
                    <label key={s} className="flex items-center gap-2">
                      <input
                        type="radio"
                        name="token-scope"
                        data-testid={`token-scope-${s}`}
                        checked={scope === s}
                        onChange={() => setScope(s)}
                      />
                      {s === "read" ? t.scopeRead : t.scopeReadWrite}
                    </label>
                  ))}
              </fieldset>
              {kb && (
                <label className="flex items-center gap-2 text-sm sm:col-span-2">
                  <input type="checkbox" data-testid="token-limit-kb" checked={limit} onChange={(e) => setLimit(e.target.checked)} />
                  {t.limitToKb} ({kb})
                </label>
              )}
              <div className="sm:col-span-2">
                <button type="submit" data-testid="create-token" disabled={busy} className={primaryButtonClass}>
                  {busy ? t.creating : t.createToken}
                </button>
                {error && <ErrorLine>{error}</ErrorLine>}
              </div>
            </form>
          )}
        </section>

        <section>
          <h3 className="mb-2 text-sm font-semibold">{t.configTitle}</h3>
          <Tabs
            className="mb-2 flex flex-wrap gap-1"
            tabs={snippets}
            selected={client}
            onSelect={setClient}
            testidPrefix="snippet-tab-"
            tabClass={(chosen) =>
              `rounded-md px-2.5 py-1 text-xs font-medium ${
                chosen
                  ? "bg-zinc-900 text-white dark:bg-zinc-100 dark:text-zinc-900"
                  : "bg-zinc-100 hover:bg-zinc-200 dark:bg-zinc-800 dark:hover:bg-zinc-700"
              }`
            }
          />
          {snippet && (
            <div role="tabpanel">
              <div className="mb-1 flex items-center justify-between gap-2 text-xs text-zinc-600 dark:text-zinc-400">
                <span>{snippet.where === "terminal" ? t.runIn : `${t.pasteInto} ${snippet.where}`}</span>
                <CopyButton text={snippet.text} testId="copy-snippet" label={snippet.label} />
              </div>
              <pre
                data-testid="snippet"
                className="max-h-64 overflow-auto whitespace-pre-wrap break-all rounded-md bg-zinc-100 p-3 font-mono text-xs dark:bg-zinc-800"
              >
                {snippet.text}
              </pre>
            </div>
          )}
        </section>
      </div>
    </div>
  );
}
