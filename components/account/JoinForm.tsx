"use client";

import { useEffect, useState } from "react";
import { apiErrorText, apiFetch } from "@/components/api";
import { fill } from "@/components/fill";
import { useMessages } from "@/components/i18n";
import { ErrorLine, Field, inputClass, primaryButtonClass, SubmitForm } from "@/components/ui";
import { MIN_PASSWORD_CHARS } from "@/lib/auth/accounts/password-rules";
import type { Role } from "@/lib/auth/roles";
import { T } from "./messages";

type Invite = { email: string | null; role: Role; kbs: string[] };

/** The /invite page: the invite secret is in the URL fragment (never sent to a server until this form posts it). */
export function JoinForm() {
  const t = useMessages(T);
  const [secret, setSecret] = useState<string | null>(null);
  const [invite, setInvite] = useState<Invite | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    const s = window.location.hash.slice(1);
    if (!s) return setError(t.inviteMissing);
    setSecret(s);
    apiFetch<{ invite: Invite }>("/api/invites/accept", { method: "PUT", body: { invite: s } })
      .then((r) => setInvite(r.invite))
      .catch((err) => setError(apiErrorText(err, t.networkError, t.failed)));
  }, [t]);

  async function join(form: FormData) {
    setBusy(true);
    setError(null);
    try {
      await apiFetch("/api/invites/accept", {
        method: "POST",
        body: {
          invite: secret,
          email: String(form.get("email")),
          name: String(form.get("name") ?? ""),
          password: String(form.get("password")),
        },
      });
      window.location.assign("/");
    } catch (err) {
      setError(apiErrorText(err, t.networkError, t.failed));
      setBusy(false);
    }
  }

  const roleText = invite ? t[`role_${invite.role}`] : "";
  return (
    <main className="mx-auto max-w-sm p-6">
      <h1 className="mb-4 text-2xl font-semibold">{t.joinTitle}</h1>
      {invite && (
        <p className="mb-4 text-sm" data-testid="join-intro">
          {fill(t.joinIntro, { role: roleText, kbs: invite.kbs.length ? fill(t.joinKbs, { kbs: invite.kbs.join(", ") }) : "" })}
        </p>
      )}
      {error && <ErrorLine className="mb-3 text-sm">{error}</ErrorLine>}
      {invite && (
        <SubmitForm
          className="flex flex-col gap-3"
          testid="join-form"
          onSubmit={(form) => {
            void join(new FormData(form));
          }}
        >
          <Field label={t.email}>
            <input
              name="email"
              type="email"
              autoComplete="username"
              required
              defaultValue={invite.email ?? ""}
              readOnly={Boolean(invite.email)}
              className={inputClass}
              data-testid="join-email"
            />
          </Field>
          <Field label={t.name}>
            <input name="name" autoComplete="name" className={inputClass} data-testid="join-name" />
          </Field>
          <Field label={t.password}>
            <input
              name="password"
              type="password"
              autoComplete="new-password"
              minLength={MIN_PASSWORD_CHARS}
              required
              className={inputClass}
              data-testid="join-password"
            />
            <span className="mt-1 block text-xs text-zinc-600 dark:text-zinc-400">
              {fill(t.passwordHint, { min: String(MIN_PASSWORD_CHARS) })}
            </span>
          </Field>
          <button type="submit" disabled={busy} className={primaryButtonClass} data-testid="join-submit">
            {busy ? t.joining : t.join}
          </button>
        </SubmitForm>
      )}
    </main>
  );
}
