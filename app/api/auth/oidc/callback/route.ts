import { audit } from "@/lib/audit/record";
import { joinWithSso } from "@/lib/auth/accounts/service";
import { withCookies } from "@/lib/auth/accounts/sessions";
import { getAccountStore } from "@/lib/auth/accounts/store";
import { resolveAuthSettings } from "@/lib/auth/config";
import { clearedFlowCookie, finishSso, flowCookieValue, oidcEnabled, ssoGrants } from "@/lib/auth/oidc";
import { callerOf } from "@/lib/auth/peer";
import { getConfig } from "@/lib/config";
import { getReadyStore } from "@/lib/server/startup";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Back on the sign-in page with a message (never an exception page). */
function toSignIn(error: string): Response {
  return withCookies(null, [clearedFlowCookie()], { location: `/signin?error=${encodeURIComponent(error)}` });
}

/**
 * GET /api/auth/oidc/callback — the provider's redirect: exchanges the code, applies the join rules, signs in.
 * A top-level navigation from the provider: it carries no Origin of ours, so the origin rule does not apply;
 * state, nonce and PKCE tie it to the browser that started the sign-in.
 */
export async function GET(req: Request): Promise<Response> {
  if (!oidcEnabled()) return toSignIn("Single sign-on is not set up.");
  const settings = resolveAuthSettings();
  const address = callerOf(req, settings).address;
  let claims: Awaited<ReturnType<typeof finishSso>>;
  try {
    claims = await finishSso(new URL(req.url), flowCookieValue(req.headers.get("cookie")));
  } catch (err) {
    console.error("[oidc] sign-in failed:", err);
    await audit(null, "sign_in_failed", {
      actor: "sso",
      address,
      outcome: "failed",
      detail: err instanceof Error ? err.message.slice(0, 200) : "error",
    });
    return toSignIn("Single sign-on failed; try again.");
  }
  const accounts = await getAccountStore(await getReadyStore());
  const existing = await accounts.findByEmail(claims.email);
  const grants =
    existing && claims.emailVerified !== false ? { role: existing.role, kbs: existing.kbs } : ssoGrants(claims, getConfig().oidc);
  if ("refused" in grants) {
    await audit(null, "sign_in_failed", { actor: claims.email || "sso", address, outcome: "denied", detail: grants.refused });
    return toSignIn(grants.refused);
  }
  const { user, cookies, created } = await joinWithSso(
    accounts,
    { email: claims.email, name: claims.name, issuer: claims.issuer },
    grants,
    settings.sessionHours,
  );
  if (created)
    await audit(null, "user_join", { actor: user.email, actorId: user.id, address, target: user.email, detail: `sso, role ${user.role}` });
  await audit(null, "sign_in", { actor: user.email, actorId: user.id, address, detail: "sso" });
  return withCookies(null, [...cookies, clearedFlowCookie()], { location: "/" });
}
