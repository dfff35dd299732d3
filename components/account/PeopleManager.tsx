"use client";

import { useCallback, useEffect, useState } from "react";
import { apiErrorText, apiFetch, copyText } from "@/components/api";
import { fill } from "@/components/fill";
import { useMessages } from "@/components/i18n";
import { buttonClass, Field, inputClass, primaryButtonClass, SubmitForm } from "@/components/ui";
import { MIN_PASSWORD_CHARS } from "@/lib/auth/accounts/password-rules";
import type { PublicUser } from "@/lib/auth/accounts/types";
import { ROLES, type Role } from "@/lib/auth/roles";
import type { KnowledgeBase } from "@/lib/kb/types";
import { AdminPage } from "./AdminPage";
import { type AccountMessages, T } from "./messages";

type PendingInvite = { id: string; email: string | null; role: Role; kbs: string[]; createdBy: string; expiresAt: string };
type People = { users: PublicUser[]; invites: PendingInvite[] };

/** Role and knowledge-base choices, shared by the invite form and each account's row. */
function GrantFields({
  t,
  kbs,
  role,
  chosen,
  onRole,
  onKbs,
  testId,
}: {
  t: AccountMessages;
  kbs: KnowledgeBase[];
  role: Role;
  chosen: string[];
  onRole: (r: Role) => void;
  onKbs: (k: string[]) => void;
  testId: string;
}) {
  return (
    <div className="flex flex-wrap items-center gap-3 text-sm">
      <label>
        <span className="sr-only">{t.role}</span>
        <select value={role} onChange={(e) => onRole(e.target.value as Role)} className={inputClass} data-testid={`${testId}-role`}>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {t[`role_${r}`]}
            </option>
          ))}
        </select>
      </label>
      {role === "admin" ? (
        <span className="text-zinc-600 dark:text-zinc-400">
          {t.kbs}: {t.allKbs}
        </span>
      ) : (
        <fieldset className="flex flex-wrap gap-2">
          <legend className="sr-only">{t.kbs}</legend>
          {kbs.map((kb) => (
            <label key={kb.name} className="flex items-center gap-1">
              <input
                type="checkbox"
                checked={chosen.includes(kb.name)}
                onChange={(e) => onKbs(e.target.checked ? [...chosen, kb.name] : chosen.filter((k) => k !== kb.name))}
                data-testid={`${testId}-kb-${kb.name}`}
              />
              {kb.name}
            </label>
          ))}
        </fieldset>
      )}
    </div>
  );
}

function UserRow({
  user,
  kbs,
  t,
  onChanged,
  onError,
  onNotice,
}: {
  user: PublicUser;
  kbs: KnowledgeBase[];
  t: AccountMessages;
  onChanged: () => void;
  onError: (m: string) => void;
  onNotice: (m: string) => void;
}) {
  const [role, setRole] = useState<Role>(user.role);
  const [chosen, setChosen] = useState<string[]>(user.kbs);
  const [saved, setSaved] = useState(false);
  const save = async () => {
    try {
      await apiFetch(`/api/users/${user.id}`, { method: "PATCH", body: { role, kbs: chosen } });
      setSaved(true);
      onChanged();
    } catch (err) {
      onError(apiErrorText(err, t.networkError, t.failed));
    }
  };
  const resetPassword = async () => {
    const password = window.prompt(fill(t.resetPasswordPrompt, { email: user.email, min: String(MIN_PASSWORD_CHARS) }));
    if (!password) return;
    try {
      await apiFetch(`/api/users/${user.id}`, { method: "PATCH", body: { password } });
      onNotice(t.passwordReset);
    } catch (err) {
      onError(apiErrorText(err, t.networkError, t.failed));
    }
  };
  const remove = async () => {
    if (!window.confirm(fill(t.confirmRemove, { email: user.email }))) return;
    try {
      await apiFetch(`/api/users/${user.id}`, { method: "DELETE" });
      onChanged();
    } catch (err) {
      onError(apiErrorText(err, t.networkError, t.failed));
    }
  };
  return (
    <li
      className="flex flex-col gap-2 rounded-lg border border-zinc-200 p-3 dark:border-zinc-800"
      data-testid="user-row"
      data-email={user.email}
    >
      <div className="flex flex-wrap items-baseline gap-2">
        <span className="font-medium">{user.email}</span>
        {user.name && user.name !== user.email && <span className="text-sm text-zinc-600 dark:text-zinc-400">{user.name}</span>}
        {!user.emailVerified ? (
          <span className="text-xs text-zinc-600 dark:text-zinc-400" data-testid="person-unverified">
            {user.origin === "invite" ? t.emailUnverified : t.ssoEmailUnverified}
          </span>
        ) : (
          user.origin !== "local" && (
            <span className="text-xs text-zinc-600 dark:text-zinc-400">{fill(t.via, { origin: user.origin })}</span>
          )
        )}
      </div>
      <GrantFields
        t={t}
        kbs={kbs}
        role={role}
        chosen={chosen}
        onRole={(r) => {
          setRole(r);
          setSaved(false);
        }}
        onKbs={(k) => {
          setChosen(k);
          setSaved(false);
        }}
        testId="user"
      />
      <div className="flex gap-2">
        <button type="button" onClick={() => void save()} className={buttonClass} data-testid="user-save">
          {saved ? t.saved : t.save}
        </button>
        {user.origin === "local" || user.origin === "invite" ? (
          <button type="button" onClick={() => void resetPassword()} className={buttonClass} data-testid="user-reset-password">
            {t.resetPassword}
          </button>
        ) : null}
        <button type="button" onClick={() => void remove()} className={buttonClass} data-testid="user-remove">
          {t.remove}
        </button>
      </div>
    </li>
  );
}

/** The /people page (admins): invite people, set their role and knowledge bases, remove them. */
export function PeopleManager() {
  const t = useMessages(T);
  const [people, setPeople] = useState<People | null>(null);
  const [kbs, setKbs] = useState<KnowledgeBase[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [role, setRole] = useState<Role>("reader");
  const [chosen, setChosen] = useState<string[]>([]);
  const [email, setEmail] = useState("");
  const [link, setLink] = useState<{ link: string; expiresAt: string } | null>(null);
  const [copied, setCopied] = useState(false);

  const refresh = useCallback(async () => {
    try {
      const [p, k] = await Promise.all([apiFetch<People>("/api/users"), apiFetch<{ kbs: KnowledgeBase[] }>("/api/kbs")]);
      setPeople(p);
      setKbs(k.kbs);
    } catch (err) {
      setError(apiErrorText(err, t.networkError, t.adminOnly));
    }
  }, [t]);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  const invite = async () => {
    setError(null);
    try {
      setLink(
        await apiFetch("/api/invites", {
          method: "POST",
          body: { email: email.trim() || null, role, kbs: role === "admin" ? [] : chosen },
        }),
      );
      setCopied(false);
      void refresh();
    } catch (err) {
      setError(apiErrorText(err, t.networkError, t.failed));
    }
  };

  const cancelInvite = async (id: string) => {
    try {
      await apiFetch(`/api/invites/${id}`, { method: "DELETE" });
      void refresh();
    } catch (err) {
      setError(apiErrorText(err, t.networkError, t.failed));
    }
  };

  return (
    <AdminPage title={t.peopleTitle} intro={t.peopleIntro} back={t.back} error={error}>
      {notice && (
        <p role="status" className="mb-4 text-sm" data-testid="people-notice">
          {notice}
        </p>
      )}
      <SubmitForm
        className="mb-8 flex flex-col gap-3 rounded-lg border border-zinc-200 p-4 dark:border-zinc-800"
        testid="invite-form"
        onSubmit={() => void invite()}
      >
        <Field label={t.inviteEmail}>
          <input type="email" value={email} onChange={(e) => setEmail(e.target.value)} className={inputClass} data-testid="invite-email" />
        </Field>
        <GrantFields t={t} kbs={kbs} role={role} chosen={chosen} onRole={setRole} onKbs={setChosen} testId="invite" />
        <button type="submit" className={`${primaryButtonClass} self-start`} data-testid="invite-submit">
          {t.invite}
        </button>
        {link && (
          <div className="text-sm">
            <p>{fill(t.inviteLink, { until: new Date(link.expiresAt).toLocaleString() })}</p>
            <div className="mt-1 flex gap-2">
              <input readOnly value={link.link} className={inputClass} data-testid="invite-link" aria-label={t.invite} />
              <button type="button" className={buttonClass} onClick={() => void copyText(link.link).then(setCopied)}>
                {copied ? t.copied : t.copy}
              </button>
            </div>
          </div>
        )}
      </SubmitForm>

      <h2 className="mb-2 text-lg font-semibold">{t.users}</h2>
      {people && people.users.length === 0 && <p className="text-sm text-zinc-600 dark:text-zinc-400">{t.noUsers}</p>}
      <ul className="mb-8 grid gap-3" data-testid="user-list">
        {people?.users.map((u) => (
          <UserRow
            key={`${u.id}:${u.role}:${u.kbs.join(",")}`}
            user={u}
            kbs={kbs}
            t={t}
            onChanged={() => void refresh()}
            onError={setError}
            onNotice={setNotice}
          />
        ))}
      </ul>

      {people && people.invites.length > 0 && (
        <>
          <h2 className="mb-2 text-lg font-semibold">{t.pendingInvites}</h2>
          <ul className="grid gap-1 text-sm" data-testid="invite-list">
            {people.invites.map((i) => (
              <li key={i.id} className="flex flex-wrap items-center gap-2" data-testid="invite-row">
                <span>
                  {i.email ?? "—"} · {t[`role_${i.role}`]} {i.kbs.length ? `(${i.kbs.join(", ")})` : ""} ·{" "}
                  {new Date(i.expiresAt).toLocaleString()}
                </span>
                <button type="button" className={buttonClass} onClick={() => void cancelInvite(i.id)} data-testid="invite-cancel">
                  {t.cancelInvite}
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
    </AdminPage>
  );
}
