import type { Principal } from "@/lib/auth/principal";
import { actorOf } from "@/lib/auth/principal";
import { getStore, type Store } from "@/lib/store";
import { getAuditLog } from "./log";
import type { AuditEvent } from "./types";

export type AuditFields = Partial<Pick<AuditEvent, "outcome" | "target" | "kb" | "detail">> & {
  /** Who, when there is no principal yet (a sign-in). */
  actor?: string;
  actorId?: string;
  address?: string;
};

/** The `kb` of an event about several knowledge bases (a grant, an invite, a role): their names, comma-separated; null for none. */
export const kbsOf = (kbs: readonly string[]): string | null => (kbs.length ? [...kbs].sort().join(",") : null);

/** Records an audit event for `principal` (anonymous for a failed sign-in) in the log of `store` (default: the app's). */
export async function audit(principal: Principal | null, action: AuditEvent["action"], fields: AuditFields = {}, store?: Store) {
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
