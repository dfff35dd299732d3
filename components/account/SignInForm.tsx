"use client";

import { useSearchParams } from "next/navigation";
import { useEffect, useState } from "react";
import { ApiError, apiErrorText, apiFetch, signInWithAdminSecret } from "@/components/api";
import { fill } from "@/components/fill";
import { useMessages } from "@/components/i18n";
import { buttonClass, Field, inputClass, PasswordInput, SubmitForm } from "@/components/ui";
import { useAction } from "@/components/use-action";
import { safeReturnPath } from "@/lib/auth/return-path";
import { AccountForm, AccountPage } from "./AccountForm";
import { signInErrorText, T } from "./messages";
import type { SessionInfo } from "./viewer";

/** The /signin page: e-mail and password, single sign-on when set up, and the admin secret as the recovery path. */
export function SignInForm() {
  const t = useMessages(T);
  const params = useSearchParams();
  const next = safeReturnPath(params.get("next"));
  const [sso, setSso] = useState<SessionInfo["sso"]>(null);
  const { busy, error, setError, run } = useAction((err) => apiErrorText(err, t.networkError, t.failed), {
    initialError: signInErrorText(params.get("error"), t),
    busyAfter: true,
  });
  const [secret, setSecret] = useState("");

  useEffect(() => {
    apiFetch<SessionInfo>("/api/session")
      .then((s) => setSso(s.sso))
      .catch(() => {});
  }, []);

  const go = () => window.location.assign(next);

  const signIn = (form: FormData) =>
    run(async () => {
      await apiFetch("/api/session", {
        method: "POST",
        body: { email: String(form.get("email")), password: String(form.get("password")) },
      });
      go();
    });

  async function signInWithSecret() {
    try {
      await signInWithAdminSecret(secret);
      setSecret("");
      return go();
    } catch (err) {
      if (!(err instanceof ApiError) || err.status === 0) return setError(t.networkError);
      setError(err.status === 429 ? t.tooManyAttempts : t.wrongSecret);
    }
  }

  return (
    <AccountPage title={t.signInTitle} error={error}>
      <AccountForm name="signin" label={t.signIn} busyLabel={t.signingIn} busy={busy} onSubmit={signIn}>
        <Field label={t.email}>
          <input name="email" type="email" autoComplete="username" required className={inputClass} data-testid="signin-email" />
        </Field>
        <Field label={t.password}>
          <PasswordInput name="password" autoComplete="current-password" testid="signin-password" />
        </Field>
      </AccountForm>
      {sso && (
        <a href="/api/auth/oidc/login" className={`${buttonClass} mt-3 block text-center`} data-testid="signin-sso">
          {fill(t.sso, { name: sso.name })}
        </a>
      )}
      <p className="mt-6 text-sm text-zinc-600 dark:text-zinc-400" data-testid="signin-owner-link-help">
        {t.ownerLinkHelp}
      </p>
      <details className="mt-4 text-sm">
        <summary className="cursor-pointer text-zinc-600 dark:text-zinc-400">{t.useSecret}</summary>
        <SubmitForm className="mt-2 flex flex-col gap-2" onSubmit={() => void signInWithSecret()}>
          <p className="text-xs text-zinc-600 dark:text-zinc-400">{t.useSecretHelp}</p>
          <input
            type="password"
            value={secret}
            onChange={(e) => setSecret(e.target.value)}
            aria-label={t.useSecret}
            className={inputClass}
            data-testid="admin-token"
          />
          <button type="submit" className={buttonClass}>
            {t.useSecretButton}
          </button>
        </SubmitForm>
      </details>
    </AccountPage>
  );
}
