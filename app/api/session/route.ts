import { audit } from "@/lib/audit/record";
import { signInSchema } from "@/lib/auth/accounts/schema";
import { signIn } from "@/lib/auth/accounts/service";
import { clearedSessionCookies, sessionSecret, withCookies } from "@/lib/auth/accounts/sessions";
import { getAccountStore } from "@/lib/auth/accounts/store";
import { resolveAuthSettings } from "@/lib/auth/config";
import { oidcEnabled } from "@/lib/auth/oidc";
import { callerOf } from "@/lib/auth/peer";
import { viewerOf } from "@/lib/auth/principal";
import { authFailures } from "@/lib/auth/request";
import { getConfig } from "@/lib/config";
import { optionalPrincipal, route } from "@/lib/server/route";
import { AppError } from "@/lib/types";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** GET /api/session — who this browser is (null: must sign in), its CSRF token, and whether single sign-on is set up. */
export const GET = route({ access: "open" }, async ({ req }) => {
  const principal = await optionalPrincipal(req);
  return {
    viewer: principal ? viewerOf(principal) : null,
    csrf: principal?.kind === "user" ? principal.session.csrf : null,
    sso: oidcEnabled() ? { name: getConfig().oidc.name } : null,
  };
});

/** POST /api/session {email, password} — signs in: a session cookie (HttpOnly, SameSite=Lax, Secure behind https). */
export const POST = route({ access: "open" }, async ({ req, body, store }) => {
  const settings = resolveAuthSettings();
  const caller = callerOf(req, settings);
  const failures = authFailures(settings, caller);
  if (failures.blocked()) throw new AppError("rate_limited", "Too many failed sign-ins from this address; try again in a minute.");
  const { email, password } = await body(signInSchema);
  const accounts = await getAccountStore(await store());
  const done = await signIn(accounts, email, password, settings.sessionHours);
  if (!done) {
    failures.record();
    await audit(null, "sign_in_failed", { actor: email.toLowerCase(), address: caller.address, outcome: "failed" });
    throw new AppError("unauthorized", "Wrong e-mail address or password.");
  }
  await audit(null, "sign_in", { actor: done.user.email, actorId: done.user.id, address: caller.address, detail: "password" });
  const { id, name, role, kbs } = done.user;
  return withCookies({ viewer: { kind: "user", id, email: done.user.email, name, role, kbs } }, done.cookies);
});

/** DELETE /api/session — signs out (the session ends on the server too). */
export const DELETE = route({}, async ({ req, store, audit: record }) => {
  const secret = sessionSecret(req.headers.get("cookie"));
  if (secret) await (await getAccountStore(await store())).deleteSession(secret);
  await record("sign_out");
  return withCookies({ signedOut: true }, clearedSessionCookies());
});
