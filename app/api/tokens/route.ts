import { checkManagementAccess, errorResponse, NO_STORE, readJson } from "@/lib/auth/admin";
import { createAccessToken, getRegistry, listAccessTokens } from "@/lib/kb";
import { getReadyStore } from "@/lib/server/startup";
import { createTokenSchema } from "./schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** GET /api/tokens — the access tokens, newest first, without secrets or hashes. */
export async function GET(req: Request): Promise<Response> {
  try {
    const denied = checkManagementAccess(req);
    if (denied) throw denied;
    const store = await getReadyStore();
    const tokens = (await listAccessTokens(await getRegistry(store.uri))).reverse();
    return Response.json({ tokens }, { headers: NO_STORE });
  } catch (err) {
    return errorResponse(err);
  }
}

/** POST /api/tokens {name, scope, kb?} — the secret is in this response only; just its hash is stored. */
export async function POST(req: Request): Promise<Response> {
  try {
    const denied = checkManagementAccess(req);
    if (denied) throw denied;
    const input = createTokenSchema.parse(await readJson(req));
    const store = await getReadyStore();
    const { token, secret } = await createAccessToken(store, await getRegistry(store.uri), input);
    return Response.json({ token, secret }, { status: 201, headers: NO_STORE });
  } catch (err) {
    return errorResponse(err);
  }
}
