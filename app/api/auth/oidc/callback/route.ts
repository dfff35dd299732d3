import { audit, kbsOf } from "@/lib/audit/record";
import { withCookies } from "@/lib/auth/accounts/sessions";
import { signInWithSso } from "@/lib/auth/accounts/sso";
import { ssoDepsOf } from "@/lib/auth/accounts/sso-recheck";
import { resolveAuthSettings } from "@/lib/auth/config";
import { clearedFlowCookie, finishSso, flowCookieValue, oidcEnabled, SsoClaimError, type SsoRefusal } from "@/lib/auth/oidc";
import { callerOf } from "@/lib/auth/peer";
import { getConfig } from "@/lib/config";
import { getReadyStore } from "@/lib/server/startup";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Back on the sign-in page with an error code it knows (never an exception page, never free text). */
function toSignIn(error: SsoRefusal | "sso_off"): Response {
  return withCookies(null, [clearedFlowCookie()], { location: `/signin?error=${error}` });
}

/**
 * GET /api/auth/oidc/callback — the provider's redirect: exchanges the code, applies the join rules, signs in.
 * A top-level navigation from the provider: it carries no Origin of ours, so the origin rule does not apply;
 * state, nonce and PKCE tie it to the browser that started the sign-in.
 */
export async function GET(req: Request): Promise<Response> {
  if (!oidcEnabled()) return toSignIn("sso_off");
  const settings = resolveAuthSettings();
  const address = callerOf(req, settings).address;
  let claims: Awaited<ReturnType<typeof finishSso>>;
  try {
    claims = await finishSso(new URL(req.url), flowCookieValue(req.headers.get("cookie")));
  } catch (err) {
    console.error("[oidc] sign-in failed:", err instanceof Error ? err.message : err);
    await audit(null, "sign_in_failed", {
      actor: "sso",
      address,
      outcome: "failed",
      detail: err instanceof Error ? err.message.slice(0, 200) : "error",
    });
    return toSignIn(err instanceof SsoClaimError ? "sso_bad_claims" : "sso_failed");
  }
  const store = await getReadyStore();
  const done = await signInWithSso(await ssoDepsOf(store), claims, getConfig().oidc, settings.sessionHours);
  if ("refused" in done) {
    const detail = `${done.refused} (${claims.issuer} ${claims.subject}, email_verified ${claims.emailVerified})`;
    await audit(null, "sign_in_failed", { actor: claims.email || "sso", address, outcome: "denied", detail });
    const gone = done.deprovisioned;
    if (gone) {
      const detail = `sso access ended: role ${gone.from} → reader of no knowledge base; sessions, tokens and OAuth grants revoked`;
      await audit(null, "user_update", { actor: "sso", address, target: gone.user.email, detail });
    }
    return toSignIn(done.refused);
  }
  const { user, cookies } = done;
  const who = { actor: user.email, actorId: user.id, address, target: user.email };
  if (done.created) await audit(null, "user_join", { ...who, kb: kbsOf(user.kbs), detail: `sso, role ${user.role}` });
  if (done.claimed)
    await audit(null, "user_update", {
      ...who,
      kb: kbsOf(user.kbs),
      detail: `sso: the verified owner of the address claimed the account made from it unverified (${done.claimed.subjects.join(", ") || "no identity left"} unlinked); its sessions, tokens and OAuth grants were revoked`,
    });
  if (done.linked) await audit(null, "user_update", { ...who, detail: `sso identity linked: ${claims.issuer} ${claims.subject}` });
  if (done.roleChange)
    await audit(null, "user_update", {
      ...who,
      kb: kbsOf(user.kbs),
      detail: `sso groups: role ${done.roleChange.from} → ${done.roleChange.to}`,
    });
  await audit(null, "sign_in", { actor: user.email, actorId: user.id, address, detail: "sso" });
  return withCookies(null, [...cookies, clearedFlowCookie()], { location: "/" });
}
