import { audit } from "@/lib/audit/record";
import { signInSchema } from "@/lib/auth/accounts/schema";
import { signIn } from "@/lib/auth/accounts/service";
import { adminSessionUserId, clearedSessionCookies, sessionSecret, startSession, withCookies } from "@/lib/auth/accounts/sessions";
import { getAccountStore } from "@/lib/auth/accounts/store";
import { adminSecretFingerprint } from "@/lib/auth/admin-secret";
import { resolveAuthSettings } from "@/lib/auth/config";
import { oidcEnabled } from "@/lib/auth/oidc";
import { callerOf } from "@/lib/auth/peer";
import { viewerOf } from "@/lib/auth/principal";
import { adminSecretAttempt, authFailures } from "@/lib/auth/request";
import { getConfig } from "@/lib/config";
import { optionalPrincipal, route } from "@/lib/server/route";
import { AppError } from "@/lib/types";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** A session made with the admin secret lasts at most this long (SESSION_HOURS when shorter). */
const ADMIN_SESSION_HOURS = 12;

/** GET /api/session — who this browser is (null: must sign in), its CSRF token, and whether single sign-on is set up. */
export const GET = route({ access: "open" }, async ({ req }) => {
  const principal = await optionalPrincipal(req);
  return {
    viewer: principal ? viewerOf(principal) : null,
    csrf: principal?.session?.csrf ?? null,
    sso: oidcEnabled() ? { name: getConfig().oidc.name } : null,
  };
});

const tooMany = () => new AppError("rate_limited", "Too many failed sign-ins; try again in a minute.");

/**
 * POST /api/session {email, password} | {secret} — signs in: a session cookie (HttpOnly, SameSite=Lax, Secure
 * behind https). The admin secret is exchanged for a session of its own, so the browser never keeps the secret.
 */
export const POST = route({ access: "open" }, async ({ req, body, store }) => {
  const settings = resolveAuthSettings();
  const caller = callerOf(req, settings);
  const input = await body(signInSchema);
  const accounts = await getAccountStore(await store());
  if ("secret" in input) {
    const attempt = adminSecretAttempt(settings, caller, input.secret);
    if (attempt === "locked") throw tooMany();
    const fingerprint = adminSecretFingerprint(settings.adminToken);
    if (!fingerprint || attempt !== "admin") {
      await audit(null, "sign_in_failed", { actor: "admin secret", address: caller.address, outcome: "failed" });
      throw new AppError("unauthorized", "That is not the admin secret.");
    }
    const hours = Math.min(ADMIN_SESSION_HOURS, settings.sessionHours ?? ADMIN_SESSION_HOURS);
    const cookies = await startSession(accounts, { id: adminSessionUserId(fingerprint) }, hours);
    await audit(null, "sign_in", { actor: "admin secret", address: caller.address, detail: "admin secret" });
    return withCookies({ viewer: { kind: "owner", id: null, email: null, name: null, role: "admin", kbs: [], signedIn: true } }, cookies);
  }
  const { email, password } = input;
  const failures = authFailures(settings, caller, { account: email });
  if (failures.locked()) throw tooMany();
  const done = await signIn(accounts, email, password, settings.sessionHours);
  if (!done) {
    const spent = failures.fail();
    await audit(null, "sign_in_failed", { actor: email.toLowerCase(), address: caller.address, outcome: spent ? "denied" : "failed" });
    if (spent) throw tooMany();
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
