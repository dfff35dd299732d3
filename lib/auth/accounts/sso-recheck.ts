/**
 * Single-sign-on membership checked again without waiting for a sign-in. Once the provider's last confirmation
 * of a person is older than OIDC_RECHECK_SECONDS, the provider is asked again with the person's refresh token —
 * by a schedule in the background, and at the next use of their session, access token or OAuth grant — and its
 * answer goes through the sign-in rule (./sso.ts applySsoClaims):
 *
 * - the claims still qualify: confirmed (OIDC_GROUP_ROLES applied again);
 * - they no longer do: de-provisioned, as at a sign-in;
 * - the provider refuses the refresh token (`invalid_grant`): sessions end, access tokens and OAuth grants are
 *   revoked, the person must sign in again;
 * - the provider cannot be asked (unreachable, a bad answer, or it never gave a refresh token): access lasts
 *   until OIDC_RECHECK_GRACE_HOURS past the last confirmation; then sessions end and tokens and OAuth grants are
 *   refused (not revoked) until a check or a sign-in confirms the person again.
 *
 * Every ending is an audit row.
 */
import { audit } from "@/lib/audit/record";
import { type OidcConfig, oidcEnabled, refreshSso } from "@/lib/auth/oidc";
import { getConfig } from "@/lib/config";
import { openText } from "@/lib/credentials/sealed";
import { getRegistry } from "@/lib/kb";
import { processGlobal } from "@/lib/process-global";
import type { Store } from "@/lib/store";
import { endAccountAccess } from "./remove";
import { applySsoClaims, REFRESH_PURPOSE, type SsoDeps, sealRefreshToken } from "./sso";
import { getSsoCheckStore, type SsoCheck } from "./sso-checks";
import { getAccountStore } from "./store";

/** A provider that could not be asked is asked again at most this often (per account), whatever the traffic. */
const RETRY_MS = 30_000;

const ageMs = (cfg: OidcConfig) => cfg.recheckSeconds * 1000;
const graceMs = (cfg: OidcConfig) => cfg.recheckGraceHours * 3600_000;
const since = (iso: string, now: Date) => now.getTime() - Date.parse(iso);

export async function ssoDepsOf(store: Store): Promise<SsoDeps> {
  const registry = await getRegistry(store);
  return {
    accounts: await getAccountStore(store),
    endAccess: (id) => endAccountAccess(store, registry, id),
    checks: await getSsoCheckStore(store),
  };
}

type Ending = { detail: string };

/** Asks the provider about the account of `check` now; whether its access goes on. */
async function askProvider(store: Store, deps: SsoDeps, check: SsoCheck, cfg: OidcConfig, now: Date): Promise<boolean> {
  const user = (await deps.accounts.users()).get(check.userId);
  const identity = await deps.accounts.findIdentity(check.issuer, check.subject);
  if (!user || !identity || identity.userId !== user.id) {
    // Removed, or no longer reached through this identity: nothing here to check.
    await deps.checks.remove(check.userId);
    return Boolean(user);
  }
  if (check.endedAt && !check.refreshSealed) {
    // Ended by the provider's word (de-provisioned, refresh token refused) or with nothing to ask it with: only a sign-in confirms the person again.
    await deps.checks.save({ ...check, attemptedAt: now.toISOString() });
    return false;
  }
  const who = { actor: "sso re-check", target: user.email, address: "server" };
  const refreshToken = check.refreshSealed && cfg.clientSecret ? openText(check.refreshSealed, cfg.clientSecret, REFRESH_PURPOSE) : null;
  let answer: Awaited<ReturnType<typeof refreshSso>> | null = null;
  let unreachable = refreshToken ? "" : "the provider gave no refresh token";
  if (refreshToken) {
    try {
      answer = await refreshSso(refreshToken, check.subject, cfg);
    } catch (err) {
      unreachable = `the provider could not be asked (${err instanceof Error ? err.message.slice(0, 120) : "error"})`;
      console.warn(`[oidc] re-check of ${user.id}: ${unreachable}`);
    }
  }
  if (answer && "claims" in answer) {
    const applied = await applySsoClaims(deps, identity, user, answer.claims, cfg);
    console.log(`[oidc] re-check of ${user.id}: ${"refused" in applied ? applied.refused : "confirmed"}`);
    if ("refused" in applied) {
      await audit(
        null,
        "user_update",
        {
          ...who,
          detail: `sso re-check: ${applied.refused}; role ${applied.deprovisioned.from} → reader of no knowledge base; sessions, tokens and OAuth grants revoked`,
        },
        store,
      );
      return false;
    }
    if (applied.roleChange) {
      await audit(
        null,
        "user_update",
        { ...who, detail: `sso re-check, groups: role ${applied.roleChange.from} → ${applied.roleChange.to}` },
        store,
      );
    }
    const at = now.toISOString();
    await deps.checks.save({
      ...check,
      refreshSealed: sealRefreshToken(answer.refreshToken, cfg),
      confirmedAt: at,
      attemptedAt: at,
      endedAt: null,
    });
    return true;
  }
  if (answer) {
    await deps.endAccess(user.id);
    await deps.checks.end(check, now);
    await audit(
      null,
      "user_update",
      {
        ...who,
        detail: `sso re-check: the provider refused the refresh token (${answer.refused.slice(0, 120)}); sessions, tokens and OAuth grants revoked`,
      },
      store,
    );
    return false;
  }
  const within = since(check.confirmedAt, now) <= graceMs(cfg);
  if (!refreshToken) console.warn(`[oidc] re-check of ${user.id}: ${unreachable}; ${within ? "within" : "past"} the grace limit`);
  let ending: Ending | null = null;
  if (!within && !check.endedAt) {
    await deps.accounts.deleteSessions(user.id);
    ending = {
      detail: `sso re-check: no confirmation for ${cfg.recheckGraceHours} h (${unreachable}); sessions ended, tokens and OAuth grants refused until the person is confirmed again`,
    };
  }
  await deps.checks.save({ ...check, attemptedAt: now.toISOString(), endedAt: within ? null : (check.endedAt ?? now.toISOString()) });
  if (ending) await audit(null, "user_update", { ...who, outcome: "denied", ...ending }, store);
  return within;
}

/** One question to the provider per account at a time: concurrent requests of one person share it. */
function recheckOnce(store: Store, deps: SsoDeps, check: SsoCheck, cfg: OidcConfig, now: Date): Promise<boolean> {
  const running = processGlobal("sso-rechecks", () => new Map<string, Promise<boolean>>());
  let pending = running.get(check.userId);
  if (!pending) {
    pending = askProvider(store, deps, check, cfg, now)
      .catch((err) => {
        console.error(`[oidc] re-check of ${check.userId} failed:`, err);
        return !check.endedAt && since(check.confirmedAt, now) <= graceMs(cfg);
      })
      .finally(() => running.delete(check.userId));
    running.set(check.userId, pending);
  }
  return pending;
}

/** Whether `check` is due: its confirmation is older than OIDC_RECHECK_SECONDS and the provider was not just asked. */
const due = (check: SsoCheck, cfg: OidcConfig, now: Date): boolean =>
  since(check.confirmedAt, now) > ageMs(cfg) && since(check.attemptedAt, now) >= Math.min(RETRY_MS, ageMs(cfg));

/**
 * Whether the account `userId` may act now as far as single sign-on is concerned: true for an account no
 * provider identity is checked for, or whose last confirmation is recent; otherwise the provider is asked first.
 * Called at every use of a session, access token or OAuth grant (lib/auth/principal.ts, mcp/http.ts).
 */
export async function ssoAccessAllowed(
  store: Store,
  userId: string,
  cfg: OidcConfig = getConfig().oidc,
  now = new Date(),
): Promise<boolean> {
  if (!oidcEnabled(cfg)) return true;
  const check = (await (await getSsoCheckStore(store)).all()).get(userId);
  if (!check) return true;
  if (due(check, cfg, now)) return recheckOnce(store, await ssoDepsOf(store), check, cfg, now);
  return !check.endedAt && since(check.confirmedAt, now) <= Math.max(ageMs(cfg), graceMs(cfg));
}

/** Every account whose check is due, asked once; accounts linked before re-checks existed get a row (no refresh token: the grace limit applies). */
export async function recheckDue(store: Store, cfg: OidcConfig = getConfig().oidc, now = new Date()): Promise<void> {
  const deps = await ssoDepsOf(store);
  const checks = await deps.checks.all();
  for (const user of (await deps.accounts.users()).values()) {
    if (checks.has(user.id)) continue;
    const [identity] = await deps.accounts.identitiesOf(user.id);
    if (!identity) continue;
    const at = now.toISOString();
    const row = {
      userId: user.id,
      issuer: identity.issuer,
      subject: identity.subject,
      refreshSealed: null,
      confirmedAt: at,
      attemptedAt: at,
      endedAt: null,
    };
    await deps.checks.save(row);
  }
  for (const check of checks.values()) if (due(check, cfg, now)) await recheckOnce(store, deps, check, cfg, now);
}

/** Runs recheckDue every `everyMs` until the returned function is called. */
export function runSsoRecheck(store: Store, everyMs: number, cfg: () => OidcConfig = () => getConfig().oidc): () => void {
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    recheckDue(store, cfg())
      .catch((err) => console.error("[oidc] scheduled re-check failed:", err))
      .finally(() => {
        busy = false;
      });
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** Starts the scheduled re-check for `store` once per process when single sign-on is on: a quarter of OIDC_RECHECK_SECONDS, at most a minute apart. */
export function startSsoRecheck(store: Store): void {
  const started = processGlobal("ssoRecheck", () => ({ on: false }));
  const cfg = getConfig().oidc;
  if (started.on || !oidcEnabled(cfg)) return;
  started.on = true;
  runSsoRecheck(store, Math.min(60_000, Math.max(1000, ageMs(cfg) / 4)));
}
