import type { Metadata } from "next";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { CONSENT_MESSAGES, fill, localeFromAcceptLanguage } from "@/components/oauth/consent-messages";
import { buttonClass, ErrorLine, inputClass, primaryButtonClass } from "@/components/ui";
import { resolveAuthSettings } from "@/lib/auth/config";
import { beginAuthorization, type ConsentView, pendingConsent } from "@/lib/auth/oauth/authorize";
import { resourceUrl } from "@/lib/auth/oauth/urls";
import { callerOf } from "@/lib/auth/peer";
import { getReadyStore } from "@/lib/server/startup";

export const metadata: Metadata = { title: "Authorize · Knowledge Chat", referrer: "same-origin" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/**
 * The OAuth authorization endpoint's page (lib/auth/oauth/authorize.ts does the work): the client's name,
 * logo (an inline data: image only) and redirect host; the admin secret; the knowledge bases and read or read-write; Allow
 * or Deny, posted with the pending request's CSRF token to /oauth/consent.
 */
export default async function AuthorizePage({ searchParams }: Props) {
  const h = await headers();
  const t = CONSENT_MESSAGES[localeFromAcceptLanguage(h.get("accept-language"))];
  const raw = await searchParams;
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(raw)) for (const one of Array.isArray(v) ? v : v === undefined ? [] : [v]) query.append(k, one);

  const deps = { getStore: () => getReadyStore() };
  let view: ConsentView | null;
  let failed: string | null = null;
  if (query.has("request_id")) {
    view = await pendingConsent(query.get("request_id") ?? "", deps, h.get("cookie"));
    failed = query.get("failed");
    if (!view) return <Problem title={t.errorTitle} message={t.expired} />;
  } else {
    const caller = callerOf(new Request("http://page.invalid/", { headers: h }), resolveAuthSettings());
    const result = await beginAuthorization(query, deps, h.get("cookie"), caller);
    if (result.kind === "redirect") redirect(result.location);
    if (result.kind === "error") return <Problem title={t.errorTitle} message={result.message} />;
    view = result.view;
  }

  const failure = failed === "secret" ? t.failedSecret : failed === "kbs" ? t.failedKbs : failed === "access" ? t.failedAccess : null;
  return (
    <main className="mx-auto max-w-lg p-6">
      <div className="mb-4 flex items-center gap-3">
        {view.logoUri && (
          // biome-ignore lint/performance/noImgElement: the client's inline data: logo, not an app asset
          <img src={view.logoUri} alt="" width={48} height={48} className="h-12 w-12 rounded" referrerPolicy="no-referrer" />
        )}
        <h1 className="text-xl font-semibold">{t.title}</h1>
      </div>
      <p className="mb-1 text-sm">{fill(t.wants, { name: view.clientName })}</p>
      <p className="mb-1 break-all text-sm text-zinc-600 dark:text-zinc-400" data-testid="consent-redirect-uri">
        {fill(t.redirect, { uri: view.redirectUri })}
      </p>
      <p className="mb-4 break-all text-xs text-zinc-600 dark:text-zinc-400">
        {t.endpoint}: {resourceUrl(view.kb)} · client_id: {view.clientId}
      </p>
      {view.wantsWrite && <p className="mb-4 text-sm">{t.wantsWrite}</p>}
      {failure && <ErrorLine className="mb-3 text-sm">{failure}</ErrorLine>}
      <form method="post" action="/oauth/consent" className="flex flex-col gap-4" data-testid="consent-form">
        <input type="hidden" name="request_id" value={view.requestId} />
        <input type="hidden" name="csrf" value={view.csrf} />
        {view.signedInAs ? (
          <p className="text-sm" data-testid="consent-signed-in">
            {fill(t.signedInAs, { email: view.signedInAs })}
          </p>
        ) : (
          <label className="text-sm">
            <span className="mb-1 block font-medium">{t.secret}</span>
            <input
              type="password"
              name="admin_secret"
              autoComplete="current-password"
              required
              className={inputClass}
              data-testid="consent-secret"
            />
            <span className="mt-1 block text-xs text-zinc-600 dark:text-zinc-400">
              {t.secretHelp}{" "}
              <a className="underline" href={`/signin?next=${encodeURIComponent(`/oauth/authorize?request_id=${view.requestId}`)}`}>
                {t.signInInstead}
              </a>
            </span>
          </label>
        )}
        <fieldset className="text-sm">
          <legend className="mb-1 font-medium">{t.kbs}</legend>
          {view.kb !== undefined ? (
            <p>{fill(t.oneKb, { kb: view.kb })}</p>
          ) : (
            view.kbs.map((kb) => (
              <label key={kb.name} className="flex items-center gap-2">
                <input type="checkbox" name="kb" value={kb.name} data-testid={`consent-kb-${kb.name}`} />
                {kb.title && kb.title !== kb.name ? `${kb.title} (${kb.name})` : kb.name}
              </label>
            ))
          )}
        </fieldset>
        <fieldset className="text-sm">
          <legend className="mb-1 font-medium">{t.access}</legend>
          <label className="flex items-center gap-2">
            <input type="radio" name="access" value="read" defaultChecked data-testid="consent-read" />
            {t.read}
          </label>
          {view.mayWrite && (
            <label className="flex items-center gap-2">
              <input type="radio" name="access" value="read-write" data-testid="consent-read-write" />
              {t.readWrite}
            </label>
          )}
        </fieldset>
        <div className="flex gap-3">
          <button type="submit" name="action" value="allow" className={primaryButtonClass} data-testid="consent-allow">
            {t.allow}
          </button>
          <button type="submit" name="action" value="deny" formNoValidate className={buttonClass} data-testid="consent-deny">
            {t.deny}
          </button>
        </div>
      </form>
    </main>
  );
}

function Problem({ title, message }: { title: string; message: string }) {
  return (
    <main className="mx-auto max-w-lg p-6">
      <h1 className="mb-2 text-xl font-semibold">{title}</h1>
      <ErrorLine>{message}</ErrorLine>
    </main>
  );
}
