/**
 * The owner's way in without an account: server.mjs makes a random secret per process and prints a sign-in link
 * with it (as Jupyter does). Opening the link gives that browser an owner session (HttpOnly cookie) and goes on
 * to the clean URL. A reverse proxy relays requests, never the secret, so unlike "the request came from
 * loopback" this cannot be had by anyone the proxy serves.
 */
import { audit } from "@/lib/audit/record";
import { LOCAL_OWNER_USER_ID, startSession, withCookies } from "@/lib/auth/accounts/sessions";
import type { AccountStore } from "@/lib/auth/accounts/store";
import { AppError } from "@/lib/types";
import type { AuthSettings } from "./config";
import { safeEqual } from "./internal";
import { callerOf } from "./peer";
import { authFailures } from "./request";
import { safeReturnPath } from "./return-path";

/** The account key that wrong owner-link secrets count against (per address: nobody else is locked out). */
const OWNER_LINK_ACCOUNT = "owner link";

/** GET /api/session/owner?token=…[&next=…] (the link server.mjs prints): an owner session and a redirect to `next` (this site only), or 401. */
export async function signInWithOwnerLink(req: Request, accounts: () => Promise<AccountStore>, settings: AuthSettings): Promise<Response> {
  const url = new URL(req.url);
  const caller = callerOf(req, settings);
  const failures = authFailures(settings, caller, { account: `${OWNER_LINK_ACCOUNT}@${caller.address}` });
  const tooMany = new AppError("rate_limited", "Too many failed sign-ins; try again in a minute.");
  if (failures.locked()) throw tooMany;
  const presented = url.searchParams.get("token") ?? "";
  if (!settings.ownerLinkToken || !safeEqual(presented, settings.ownerLinkToken)) {
    const spent = failures.fail();
    await audit(null, "sign_in_failed", { actor: "owner link", address: caller.address, outcome: spent ? "denied" : "failed" });
    if (spent) throw tooMany;
    throw new AppError("unauthorized", "This sign-in link is not the one the server printed at its last start.");
  }
  const cookies = await startSession(await accounts(), { id: LOCAL_OWNER_USER_ID }, settings.sessionHours);
  await audit(null, "sign_in", { actor: "local", address: caller.address, detail: "owner link" });
  return withCookies(null, cookies, { location: safeReturnPath(url.searchParams.get("next")), status: 303 });
}
