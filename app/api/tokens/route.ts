import { createAccessToken, listAccessTokens } from "@/lib/kb";
import { route } from "@/lib/server/route";
import { createTokenSchema } from "./schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** GET /api/tokens — the access tokens, newest first, without secrets or hashes. */
export const GET = route({}, async ({ registry }) => ({ tokens: (await listAccessTokens(await registry())).reverse() }));

/** POST /api/tokens {name, scope, kb?} — the secret is in this response only; just its hash is stored. */
export const POST = route({ status: 201 }, async ({ body, store, registry }) => {
  const input = await body(createTokenSchema);
  return await createAccessToken(await store(), await registry(), input);
});
