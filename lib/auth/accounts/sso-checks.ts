/**
 * What re-checking a single-sign-on person's membership needs, one row per account in a side table: the
 * identity it checks, the provider's refresh token (sealed, never returned or logged), when the provider last
 * confirmed the person, when it was last asked, and when access was ended for want of a confirmation.
 */
import { Schema } from "apache-arrow";
import { openSideTables, perStore, type Store, serialQueue, versionCached } from "@/lib/store";
import { textField } from "@/lib/store/schema";
import { sqlEq } from "@/lib/store/sql";
import { upsertRows } from "@/lib/store/tables";

const checksSchema = new Schema([
  textField("user_id"),
  textField("issuer"),
  textField("subject"),
  textField("refresh_sealed", true),
  textField("confirmed_at"),
  textField("attempted_at"),
  textField("ended_at", true),
]);

export interface SsoCheck {
  userId: string;
  issuer: string;
  subject: string;
  /** The provider's refresh token sealed (lib/credentials/sealed.ts); null when it gave none. */
  refreshSealed: string | null;
  /** When the provider last vouched for the person (a sign-in or a re-check that passed). */
  confirmedAt: string;
  /** When the provider was last asked. */
  attemptedAt: string;
  /** When access was ended because no confirmation came within the grace limit; null while it lasts. */
  endedAt: string | null;
}

export interface SsoCheckStore {
  /** Every row by account id (cached per table version: every signed-in request asks). */
  all(): Promise<ReadonlyMap<string, SsoCheck>>;
  save(check: SsoCheck): Promise<void>;
  /** Marks the account's access ended by the provider's word (its refresh token dropped) until a sign-in confirms the person again. */
  end(identity: Pick<SsoCheck, "userId" | "issuer" | "subject">, at: Date): Promise<void>;
  remove(userId: string): Promise<void>;
}

const rowToCheck = (r: Record<string, unknown>): SsoCheck => ({
  userId: String(r.user_id),
  issuer: String(r.issuer),
  subject: String(r.subject),
  refreshSealed: r.refresh_sealed == null ? null : String(r.refresh_sealed),
  confirmedAt: String(r.confirmed_at),
  attemptedAt: String(r.attempted_at),
  endedAt: r.ended_at == null ? null : String(r.ended_at),
});

async function openSsoCheckStore(store: Store): Promise<SsoCheckStore> {
  const { checks } = await openSideTables(store, { checks: { name: "sso_checks", schema: checksSchema } });
  const serialized = serialQueue();
  const all = versionCached(checks, async () => new Map((await checks.table.query().toArray()).map(rowToCheck).map((c) => [c.userId, c])));
  const save = (c: SsoCheck) =>
    serialized(async () => {
      const row = {
        user_id: c.userId,
        issuer: c.issuer,
        subject: c.subject,
        refresh_sealed: c.refreshSealed,
        confirmed_at: c.confirmedAt,
        attempted_at: c.attemptedAt,
        ended_at: c.endedAt,
      };
      await upsertRows(checks, "user_id", [row]);
    });
  return {
    all,
    save,
    async end(identity, at) {
      const previous = (await all()).get(identity.userId);
      const iso = at.toISOString();
      await save({ ...identity, refreshSealed: null, confirmedAt: previous?.confirmedAt ?? iso, attemptedAt: iso, endedAt: iso });
    },
    remove(userId) {
      return serialized(async () => {
        await checks.write((t) => t.delete(sqlEq("user_id", userId)));
      });
    },
  };
}

export const getSsoCheckStore: (store: Store) => Promise<SsoCheckStore> = perStore("sso-check-stores", openSsoCheckStore);
