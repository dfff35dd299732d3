/**
 * The owner's way in without an account: a sign-in link with a secret nobody else can have — the one server.mjs
 * prints at start, or one `npm run owner-link` asks for on the server's machine (lib/auth/owner-link-tokens.ts).
 * Opening it gives that browser an owner session (HttpOnly cookie) and goes on to the clean URL; each link does so
 * once. A reverse proxy relays requests, never the secret, so unlike "the request came from loopback" this cannot
 * be had by anyone the proxy serves.
 */
import { audit } from "@/lib/audit/record";
import { LOCAL_OWNER_USER_ID, startSession, withCookies } from "@/lib/auth/accounts/sessions";
import type { AccountStore } from "@/lib/auth/accounts/store";
import { AppError } from "@/lib/types";
import type { AuthSettings } from "./config";
import { redeemOwnerLinkToken } from "./owner-link-tokens";
import { callerOf } from "./peer";
import { addressKey } from "./rate-limit";
import { getRateLimiter } from "./request";
import { safeReturnPath } from "./return-path";

/** GET /api/session/owner?token=…[&next=…]: an owner session and a redirect to `next` (this site only), or 401. */
export async function signInWithOwnerLink(req: Request, accounts: () => Promise<AccountStore>, settings: AuthSettings): Promise<Response> {
  const url = new URL(req.url);
  const caller = callerOf(req, settings);
  // The right secret (192 random bits, good once) is taken whatever anyone has spent: nobody can guess it, so a
  // lock in front of it would only let others lock the owner out — behind a same-host proxy everyone's address
  // is 127.0.0.1. Wrong ones count in a budget of their own, never the address's shared one.
  if (!redeemOwnerLinkToken(url.searchParams.get("token") ?? "", settings.ownerLinkToken)) {
    const spent = !getRateLimiter(settings.authFailuresPerMinute ?? 10, "owner-link-failures").take(addressKey(caller.address)).allowed;
    await audit(null, "sign_in_failed", { actor: "owner link", address: caller.address, outcome: spent ? "denied" : "failed" });
    if (spent) throw new AppError("rate_limited", "Too many failed sign-ins; try again in a minute.");
    throw new AppError(
      "unauthorized",
      "This sign-in link was used already or is not valid: each one signs in once. Run `npm run owner-link` on the server's machine for a new one.",
    );
  }
  const cookies = await startSession(await accounts(), { id: LOCAL_OWNER_USER_ID }, settings.sessionHours);
  await audit(null, "sign_in", { actor: "local", address: caller.address, detail: "owner link" });
  return withCookies(null, cookies, { location: safeReturnPath(url.searchParams.get("next")), status: 303 });
}
