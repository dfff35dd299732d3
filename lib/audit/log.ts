/**
 * The audit log: a side table of the document store, appended to in small batches (a bulk upload of a
 * thousand files is a few commits, not a thousand). A read first writes what is pending, so a record is
 * always listed by the next request.
 */
import { randomBytes } from "node:crypto";
import { Schema } from "apache-arrow";
import { countAuditEvent } from "@/lib/metrics";
import { perStore, type Store, serialQueue } from "@/lib/store";
import { textField } from "@/lib/store/schema";
import { sqlEq, sqlString } from "@/lib/store/sql";
import { AUDIT_COLUMNS, type AuditEvent, type AuditFilter } from "./types";

const AUDIT_TABLE = "audit_log";

const auditSchema = new Schema([
  textField("id"),
  textField("at"),
  textField("actor"),
  textField("actor_id", true),
  textField("action"),
  textField("outcome"),
  textField("target", true),
  textField("kb", true),
  textField("detail", true),
  textField("address"),
]);

const FLUSH_AFTER_MS = 500;
/**
 * Events recorded in the same millisecond are listed in the order they were recorded: an id starts with this
 * process's count of events (fixed width, so ids compare as the counts do), then random hex.
 */
let recorded = 0;
const eventId = () => `aud_${(recorded++).toString(36).padStart(10, "0")}${randomBytes(4).toString("hex")}`;
/** Newest first; in one millisecond the last recorded first. Plain code-unit order (not the locale's). */
const newestFirst = (a: AuditEvent, b: AuditEvent) => (a.at === b.at ? (a.id < b.id ? 1 : a.id > b.id ? -1 : 0) : a.at < b.at ? 1 : -1);
const FLUSH_AT = 200;
const MAX_AUDIT_LIST = 5000;

export interface AuditLog {
  /** Records an event (written within half a second, or before the next read). */
  record(event: Omit<AuditEvent, "id" | "at">): void;
  /** Newest first. */
  list(filter?: AuditFilter): Promise<AuditEvent[]>;
  flush(): Promise<void>;
}

const rowToEvent = (r: Record<string, unknown>): AuditEvent => ({
  id: String(r.id),
  at: String(r.at),
  actor: String(r.actor),
  actorId: r.actor_id == null ? null : String(r.actor_id),
  action: String(r.action) as AuditEvent["action"],
  outcome: String(r.outcome) as AuditEvent["outcome"],
  target: r.target == null ? null : String(r.target),
  kb: r.kb == null ? null : String(r.kb),
  detail: r.detail == null ? null : String(r.detail),
  address: String(r.address),
});

async function openAuditLog(store: Store): Promise<AuditLog> {
  const side = await store.sideTable(AUDIT_TABLE, auditSchema);
  const serialized = serialQueue();
  let pending: AuditEvent[] = [];
  let timer: NodeJS.Timeout | null = null;

  const flush = () =>
    serialized(async () => {
      if (timer) clearTimeout(timer);
      timer = null;
      if (!pending.length) return;
      const batch = pending;
      pending = [];
      const rows = batch.map((e) => ({
        id: e.id,
        at: e.at,
        actor: e.actor,
        actor_id: e.actorId,
        action: e.action,
        outcome: e.outcome,
        target: e.target,
        kb: e.kb,
        detail: e.detail,
        address: e.address,
      }));
      await side.write((t) => t.add(rows));
    });

  const flushSoon = () => flush().catch((err) => console.error("[audit] could not write the audit log:", err));

  return {
    record(event) {
      const full: AuditEvent = { ...event, id: eventId(), at: new Date().toISOString() };
      pending.push(full);
      countAuditEvent(full.action, full.outcome);
      if (pending.length >= FLUSH_AT) void flushSoon();
      else if (!timer) {
        timer = setTimeout(flushSoon, FLUSH_AFTER_MS);
        timer.unref?.();
      }
    },
    async list(filter = {}) {
      await flush();
      const where = [
        filter.action ? sqlEq("action", filter.action) : null,
        filter.since ? `at >= ${sqlString(filter.since)}` : null,
        filter.until ? `at <= ${sqlString(filter.until)}` : null,
      ].filter(Boolean);
      let q = side.table.query();
      if (where.length) q = q.where(where.join(" AND "));
      let events = (await q.toArray()).map(rowToEvent);
      // A row about several knowledge bases lists them all (lib/audit/record.ts kbsOf): any of them matches.
      if (filter.kb) events = events.filter((e) => e.kb?.split(",").includes(filter.kb!));
      if (filter.actor) {
        const needle = filter.actor.toLowerCase();
        events = events.filter((e) => e.actor.toLowerCase().includes(needle));
      }
      events.sort(newestFirst);
      return events.slice(0, Math.min(filter.limit ?? MAX_AUDIT_LIST, MAX_AUDIT_LIST));
    },
    flush,
  };
}

/**
 * RFC 4180 CSV of the events, header first. Every cell is quoted (so no separator inside a cell — a comma, or a
 * semicolon in locales that split on it — makes a new cell), and a cell a spreadsheet would run as a formula
 * starts with a '.
 */
export function auditCsv(events: readonly AuditEvent[]): string {
  const cell = (v: string | null) => {
    let s = v ?? "";
    if (/^[=+\-@\t\r;|%]/.test(s)) s = `'${s}`;
    return `"${s.replace(/"/g, '""')}"`;
  };
  const lines = [AUDIT_COLUMNS.map(cell).join(",")];
  for (const e of events) lines.push(AUDIT_COLUMNS.map((c) => cell(e[c])).join(","));
  return `${lines.join("\r\n")}\r\n`;
}

/** The process-wide audit log in the side table of `store`. */
export const getAuditLog: (store: Store) => Promise<AuditLog> = perStore("audit-logs", openAuditLog);
