import { getOAuthStore } from "@/lib/auth/oauth/store";
import { mayManage, ownersOf } from "@/lib/auth/scope";
import { route } from "@/lib/server/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** GET /api/oauth/grants — the connected apps (OAuth grants; a person's own, an admin's all), newest first; revoked ones included. */
export const GET = route({}, async ({ store, principal }) => {
  const ready = await store();
  const owners = await ownersOf(ready, "oauth_grant");
  const grants = (await (await getOAuthStore(ready)).listGrants()).filter((g) => mayManage(principal, owners, g.id));
  return { grants: grants.reverse() };
});
