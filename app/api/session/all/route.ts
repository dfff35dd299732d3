import { clearedSessionCookies, withCookies } from "@/lib/auth/accounts/sessions";
import { getAccountStore } from "@/lib/auth/accounts/store";
import { route } from "@/lib/server/route";
import { AppError } from "@/lib/types";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** DELETE /api/session/all — signs out everywhere: every session of this person (or of the admin secret) ends, this one too. */
export const DELETE = route({}, async ({ principal, store, audit }) => {
  if (!principal.session) throw new AppError("bad_request", "This browser is not signed in.");
  await (await getAccountStore(await store())).deleteSessions(principal.session.userId);
  await audit("sign_out", { detail: "everywhere" });
  return withCookies({ signedOut: true }, clearedSessionCookies());
});
