import { hashTokenSecret } from "@/lib/credentials/tokens";
import { processGlobal } from "@/lib/process-global";
import { adminSecretUnguessable, isAdminSecret } from "./admin-secret";
import type { AuthSettings } from "./config";
import type { Caller } from "./peer";
import { addressKey, createRateLimiter, type RateLimiter } from "./rate-limit";

/** The process-wide limiter named `name` for `count` requests per `windowSeconds` (a minute; burst = `count`). */
export function getRateLimiter(count: number, name = "mcp", windowSeconds = 60): RateLimiter {
  const map = processGlobal("rate-limiters", () => new Map<string, RateLimiter>());
  const key = `${name}:${count}/${windowSeconds}`;
  let rl = map.get(key);
  if (!rl) {
    rl = createRateLimiter({ capacity: count, refillPerSecond: count / windowSeconds });
    map.set(key, rl);
  }
  return rl;
}

/**
 * Failed authentications (a wrong password, admin secret or access token), counted per client address, per
 * presented credential and per account, so that one person behind a shared address (a NAT, a proxy) cannot
 * lock out everyone else's valid tokens and sessions. Shared by the web API, OAuth consent and MCP:
 *
 * - `locked()` before checking: the account (or the same wrong credential) has spent its budget, so even the
 *   right password is refused with 429 for a while (online guessing of one account stops there); for a
 *   password (`account` given) the address's budget too, so spraying one password over many accounts from
 *   one address (or one IPv6 /64, see addressKey) stops at the same count;
 * - `fail()` after a wrong one: counts it, and says whether to answer 429 instead of 401 (the address, account
 *   or credential had spent its budget already). A valid access token is accepted whatever its address has spent.
 */
export function authFailures(
  settings: Pick<AuthSettings, "authFailuresPerMinute">,
  caller: Caller,
  presented: { credential?: string | null; account?: string | null } = {},
) {
  const limiter = getRateLimiter(settings.authFailuresPerMinute ?? 10, "auth-failures");
  const address = addressKey(caller.address);
  const own = [
    presented.credential ? `cred:${hashTokenSecret(presented.credential)}` : null,
    presented.account ? `acct:${presented.account.trim().toLowerCase()}` : null,
  ].filter((k): k is string => k !== null);
  return {
    locked: () => (presented.account ? [address, ...own] : own).some((k) => !limiter.peek(k)),
    /** The address's budget is spent: for endpoints where every attempt is a guess (invite links), not a held credential. */
    addressBlocked: () => !limiter.peek(address),
    fail: (): boolean => {
      const spent = [address, ...own].some((k) => !limiter.peek(k));
      for (const k of [address, ...own]) limiter.take(k);
      return spent;
    },
  };
}

/** The account key of admin-secret attempts from one address: wrong tokens from there do not lock the secret, wrong secrets do. */
const adminSecretAccount = (caller: Caller): string => `admin secret@${addressKey(caller.address)}`;

/**
 * One presentation of the admin secret (a bearer token, the sign-in form, OAuth consent) from `caller`: "admin"
 * when it is the secret, "locked" for 429 (its address has spent its budget), "wrong" for 401. The right secret
 * gets past a spent budget when nobody can guess it (adminSecretUnguessable), as a valid access token does:
 * behind a proxy without TRUSTED_PROXIES everyone's address is the proxy's, and the lock would keep the owner
 * out for anyone who sends wrong ones. A guessable ADMIN_TOKEN stays behind the lock, like a password.
 */
export function adminSecretAttempt(
  settings: Pick<AuthSettings, "authFailuresPerMinute" | "adminToken">,
  caller: Caller,
  presented: string | null,
): "admin" | "locked" | "wrong" {
  const failures = authFailures(settings, caller, { account: adminSecretAccount(caller) });
  const right = presented !== null && isAdminSecret(presented, settings.adminToken);
  if (right && adminSecretUnguessable(settings.adminToken)) return "admin";
  if (failures.locked()) return "locked";
  if (right) return "admin";
  return failures.fail() ? "locked" : "wrong";
}
