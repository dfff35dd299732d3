import { withCookies } from "@/lib/auth/accounts/sessions";
import { beginSso, oidcEnabled } from "@/lib/auth/oidc";
import { route } from "@/lib/server/route";
import { AppError } from "@/lib/types";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** GET /api/auth/oidc/login — sends the browser to the identity provider. */
export const GET = route({ access: "open" }, async () => {
  if (!oidcEnabled()) throw new AppError("not_found", "Single sign-on is not set up (OIDC_ISSUER, OIDC_CLIENT_ID).");
  const { location, cookie } = await beginSso();
  return withCookies(null, [cookie], { location });
});
