import { getStore, type Store } from "@/lib/store";
import { getAuditLog } from "./log";
import type { AuditEvent } from "./types";

/** Who acted, as the log needs it: an authenticated principal (lib/auth) has this shape. */
export type AuditPrincipal =
  | { kind: "owner"; via: "local" | "admin-secret"; caller: { address: string } }
  | { kind: "user"; user: { id: string; email: string }; caller: { address: string } };

/** The name an event is recorded under: a person's email, "local" or "admin secret". */
export const actorOf = (p: AuditPrincipal): string => (p.kind === "user" ? p.user.email : p.via === "local" ? "local" : "admin secret");

export type AuditFields = Partial<Pick<AuditEvent, "outcome" | "target" | "kb" | "detail">> & {
  /** Who, when there is no principal yet (a sign-in). */
  actor?: string;
  actorId?: string;
  address?: string;
};

/** The `kb` of an event about several knowledge bases (a grant, an invite, a role): their names, comma-separated; null for none. */
export const kbsOf = (kbs: readonly string[]): string | null => (kbs.length ? [...kbs].sort().join(",") : null);

/** Records an audit event for `principal` (anonymous for a failed sign-in) in the log of `store` (default: the app's). */
export async function audit(principal: AuditPrincipal | null, action: AuditEvent["action"], fields: AuditFields = {}, store?: Store) {
  const log = await getAuditLog(store ?? (await getStore()));
  log.record({
    actor: fields.actor ?? (principal ? actorOf(principal) : "anonymous"),
    actorId: fields.actorId ?? (principal?.kind === "user" ? principal.user.id : null),
    action,
    outcome: fields.outcome ?? "ok",
    target: fields.target ?? null,
    kb: fields.kb ?? null,
    detail: fields.detail ?? null,
    address: fields.address ?? principal?.caller.address ?? "unknown",
  });
}
