"use client";

import { useEffect, useState } from "react";
import { apiErrorText, apiFetch } from "@/components/api";
import { fill } from "@/components/fill";
import { useMessages } from "@/components/i18n";
import { Field, inputClass, PasswordInput } from "@/components/ui";
import { useAction } from "@/components/use-action";
import { MIN_PASSWORD_CHARS } from "@/lib/auth/accounts/password-rules";
import type { Role } from "@/lib/auth/roles";
import { AccountForm, AccountPage } from "./AccountForm";
import { T } from "./messages";

type Invite = { email: string | null; role: Role; kbs: string[] };

/** The /invite page: the invite secret is in the URL fragment (never sent to a server until this form posts it). */
export function JoinForm() {
  const t = useMessages(T);
  const [secret, setSecret] = useState<string | null>(null);
  const [invite, setInvite] = useState<Invite | null>(null);
  const { busy, error, setError, run } = useAction((err) => apiErrorText(err, t.networkError, t.failed), { busyAfter: true });

  useEffect(() => {
    const s = window.location.hash.slice(1);
    if (!s) return setError(t.inviteMissing);
    setSecret(s);
    apiFetch<{ invite: Invite }>("/api/invites/accept", { method: "PUT", body: { invite: s } })
      .then((r) => setInvite(r.invite))
      .catch((err) => setError(apiErrorText(err, t.networkError, t.failed)));
  }, [t, setError]);

  const join = (form: FormData) =>
    run(async () => {
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
    });

  const roleText = invite ? t[`role_${invite.role}`] : "";
  return (
    <AccountPage
      title={t.joinTitle}
      intro={
        invite && (
          <p className="mb-4 text-sm" data-testid="join-intro">
            {fill(t.joinIntro, { role: roleText, kbs: invite.kbs.length ? fill(t.joinKbs, { kbs: invite.kbs.join(", ") }) : "" })}
          </p>
        )
      }
      error={error}
    >
      {invite && (
        <AccountForm name="join" label={t.join} busyLabel={t.joining} busy={busy} onSubmit={join}>
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
            <PasswordInput name="password" autoComplete="new-password" minLength={MIN_PASSWORD_CHARS} testid="join-password" />
            <span className="mt-1 block text-xs text-zinc-600 dark:text-zinc-400">
              {fill(t.passwordHint, { min: String(MIN_PASSWORD_CHARS) })}
            </span>
          </Field>
        </AccountForm>
      )}
    </AccountPage>
  );
}
