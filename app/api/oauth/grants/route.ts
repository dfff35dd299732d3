import { getOAuthStore } from "@/lib/auth/oauth/store";
import { route } from "@/lib/server/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** GET /api/oauth/grants — the connected apps (OAuth grants), newest first; revoked ones included. */
export const GET = route({}, async ({ store }) => ({ grants: (await (await getOAuthStore(await store())).listGrants()).reverse() }));
