"use client";

import { useState } from "react";
import { apiErrorText, apiFetch } from "@/components/api";
import { fill } from "@/components/fill";
import { useMessages } from "@/components/i18n";
import { buttonClass, Field, PasswordInput } from "@/components/ui";
import { useAction } from "@/components/use-action";
import { MIN_PASSWORD_CHARS } from "@/lib/auth/accounts/password-rules";
import { AccountForm } from "./AccountForm";
import { AdminPage } from "./AdminPage";
import { T } from "./messages";
import { useViewer } from "./viewer";

/** The /account page: change one's own password (other sessions end), and sign out everywhere. */
export function AccountSettings() {
  const t = useMessages(T);
  const viewer = useViewer();
  const [done, setDone] = useState<string | null>(null);
  const { busy, error, run } = useAction((err) => apiErrorText(err, t.networkError, t.failed));

  const change = (form: FormData) =>
    run(async () => {
      setDone(null);
      await apiFetch("/api/session/password", {
        method: "POST",
        body: { current: String(form.get("current")), password: String(form.get("password")) },
      });
      setDone(t.passwordChanged);
    });

  const everywhere = () =>
    run(async () => {
      await apiFetch("/api/session/all", { method: "DELETE" });
      window.location.assign("/signin");
    });

  return (
    <AdminPage title={t.accountTitle} intro={viewer?.email ?? ""} back={t.back} error={error}>
      {viewer?.kind === "user" && (
        <section className="mb-8 max-w-sm">
          <h2 className="mb-2 text-lg font-semibold">{t.changePassword}</h2>
          <AccountForm name="password" label={t.changePassword} busyLabel={t.changingPassword} busy={busy} onSubmit={change}>
            <Field label={t.currentPassword}>
              <PasswordInput name="current" autoComplete="current-password" testid="password-current" />
            </Field>
            <Field label={t.newPassword}>
              <PasswordInput name="password" autoComplete="new-password" minLength={MIN_PASSWORD_CHARS} testid="password-new" />
            </Field>
            <p className="text-xs text-zinc-600 dark:text-zinc-400">{fill(t.passwordHint, { min: String(MIN_PASSWORD_CHARS) })}</p>
          </AccountForm>
          {done && (
            <p role="status" className="mt-2 text-sm" data-testid="password-changed">
              {done}
            </p>
          )}
        </section>
      )}
      <section className="max-w-sm">
        <p className="mb-2 text-sm text-zinc-600 dark:text-zinc-400">{t.signOutEverywhereHelp}</p>
        <button type="button" className={buttonClass} onClick={() => void everywhere()} data-testid="sign-out-everywhere">
          {t.signOutEverywhere}
        </button>
      </section>
    </AdminPage>
  );
}
