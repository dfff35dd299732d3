"use client";

import { useCallback, useEffect, useState } from "react";
import { apiErrorText, apiFetch, authHeaders } from "@/components/api";
import { downloadBlob } from "@/components/download";
import { useMessages } from "@/components/i18n";
import { buttonClass, Field, inputClass, SubmitForm, ValueOptions } from "@/components/ui";
import { AUDIT_ACTIONS, type AuditEvent } from "@/lib/audit/types";
import { AdminPage } from "./AdminPage";
import { T } from "./messages";

type Filter = { actor: string; action: string; kb: string; since: string; until: string };
const EMPTY: Filter = { actor: "", action: "", kb: "", since: "", until: "" };

/** The filter as the query of GET /api/audit (dates as ISO times, the end of the day for "until"). */
function query(f: Filter, format?: "csv"): string {
  const q = new URLSearchParams();
  if (f.actor.trim()) q.set("actor", f.actor.trim());
  if (f.action) q.set("action", f.action);
  if (f.kb.trim()) q.set("kb", f.kb.trim());
  if (f.since) q.set("since", new Date(`${f.since}T00:00:00`).toISOString());
  if (f.until) q.set("until", new Date(`${f.until}T23:59:59.999`).toISOString());
  if (format) q.set("format", format);
  return q.toString();
}

/** The /audit page (admins): the audit log with filters, and its CSV export. */
export function AuditLog() {
  const t = useMessages(T);
  const [filter, setFilter] = useState<Filter>(EMPTY);
  const [applied, setApplied] = useState<Filter>(EMPTY);
  const [events, setEvents] = useState<AuditEvent[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(
    async (f: Filter) => {
      try {
        setEvents((await apiFetch<{ events: AuditEvent[] }>(`/api/audit?${query(f)}`)).events);
        setError(null);
      } catch (err) {
        setError(apiErrorText(err, t.networkError, t.adminOnly));
      }
    },
    [t],
  );

  useEffect(() => {
    void load(applied);
  }, [load, applied]);

  const exportCsv = async () => {
    const res = await fetch(`/api/audit?${query(applied, "csv")}`, { headers: authHeaders() });
    if (!res.ok) return setError(t.failed);
    downloadBlob("audit-log.csv", await res.blob());
  };

  const field = (key: keyof Filter) => ({
    value: filter[key],
    onChange: (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) => setFilter({ ...filter, [key]: e.target.value }),
  });

  return (
    <AdminPage title={t.auditTitle} intro={t.auditIntro} back={t.back} error={error} wide>
      <SubmitForm className="mb-4 flex flex-wrap items-end gap-2 text-sm" testid="audit-filter" onSubmit={() => setApplied(filter)}>
        <Field label={t.actor}>
          <input {...field("actor")} className={inputClass} data-testid="audit-actor" />
        </Field>
        <Field label={t.action}>
          <select {...field("action")} className={inputClass} data-testid="audit-action">
            <option value="">{t.anyAction}</option>
            <ValueOptions values={AUDIT_ACTIONS} />
          </select>
        </Field>
        <Field label={t.kb}>
          <input {...field("kb")} className={inputClass} data-testid="audit-kb" />
        </Field>
        <Field label={t.since}>
          <input type="date" {...field("since")} className={inputClass} />
        </Field>
        <Field label={t.until}>
          <input type="date" {...field("until")} className={inputClass} />
        </Field>
        <button type="submit" className={buttonClass} data-testid="audit-apply">
          {t.filter}
        </button>
        <button type="button" className={buttonClass} onClick={() => void exportCsv()} data-testid="audit-csv">
          {t.exportCsv}
        </button>
      </SubmitForm>
      {events && events.length === 0 && <p className="text-sm text-zinc-600 dark:text-zinc-400">{t.noEvents}</p>}
      {events && events.length > 0 && (
        <div className="overflow-x-auto">
          <table className="w-full text-left text-sm" data-testid="audit-table">
            <thead>
              <tr className="border-b border-zinc-200 dark:border-zinc-800">
                <th className="p-1">{t.when}</th>
                <th className="p-1">{t.actor}</th>
                <th className="p-1">{t.action}</th>
                <th className="p-1">{t.outcome}</th>
                <th className="p-1">{t.kb}</th>
                <th className="p-1">{t.target}</th>
                <th className="p-1">{t.detail}</th>
                <th className="p-1">{t.from}</th>
              </tr>
            </thead>
            <tbody>
              {events.map((e) => (
                <tr
                  key={e.id}
                  className="border-b border-zinc-100 align-top dark:border-zinc-900"
                  data-testid="audit-row"
                  data-action={e.action}
                >
                  <td className="whitespace-nowrap p-1">{new Date(e.at).toLocaleString()}</td>
                  <td className="p-1">{e.actor}</td>
                  <td className="p-1">{e.action}</td>
                  <td className="p-1">{e.outcome}</td>
                  <td className="p-1">{e.kb ?? ""}</td>
                  <td className="break-all p-1">{e.target ?? ""}</td>
                  <td className="break-all p-1">{e.detail ?? ""}</td>
                  <td className="p-1">{e.address}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </AdminPage>
  );
}
