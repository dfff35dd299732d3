import type { Store } from "@/lib/store";
import { sqlEq } from "@/lib/store/sql";

/** The columns an access token and an OAuth grant share: their id, dates and revoked flag. */
interface CredentialFields {
  id: string;
  createdAt: string;
  lastUsedAt: string | null;
  revoked: boolean;
}

/** A credential's shared fields read from its table row. */
export function credentialFromRow(r: Record<string, unknown>): CredentialFields {
  return {
    id: String(r.id),
    createdAt: String(r.created_at),
    lastUsedAt: r.last_used_at == null ? null : String(r.last_used_at),
    revoked: Boolean(r.revoked),
  };
}

/** A credential's shared fields as its table row's columns. */
export function credentialToRow(c: CredentialFields) {
  return { id: c.id, created_at: c.createdAt, last_used_at: c.lastUsedAt, revoked: c.revoked };
}

/** How often a credential's last use is written: at most once a minute per credential and process. */
const TOUCH_EVERY_MS = 60_000;

/**
 * Records the last use of a credential in `side`'s last_used_at column, through the table's serial queue, at
 * most once per TOUCH_EVERY_MS per id: an authenticated request never waits on a write for each call.
 */
export function lastUseRecorder(
  side: Awaited<ReturnType<Store["sideTable"]>>,
  serialized: <T>(fn: () => Promise<T>) => Promise<T>,
): (id: string, now?: Date) => Promise<void> {
  const touched = new Map<string, number>();
  return async (id, now = new Date()) => {
    const last = touched.get(id) ?? 0;
    if (now.getTime() - last < TOUCH_EVERY_MS) return;
    touched.set(id, now.getTime());
    if (touched.size > 10_000) touched.clear();
    await serialized(() => side.write((t) => t.update({ where: sqlEq("id", id), values: { last_used_at: now.toISOString() } })));
  };
}
