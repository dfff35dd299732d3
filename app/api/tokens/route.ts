import { limitOfPrincipal, requireKbAccess } from "@/lib/auth/principal";
import { mayManage, ownersOf, recordOwner } from "@/lib/auth/scope";
import { createAccessToken, listAccessTokens } from "@/lib/kb";
import { route } from "@/lib/server/route";
import { AppError } from "@/lib/types";
import { createTokenSchema } from "./schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** GET /api/tokens — the access tokens (a person's own; an admin's: all), newest first, without secrets or hashes. */
export const GET = route({}, async ({ registry, store, principal }) => {
  const owners = await ownersOf(await store(), "token");
  const tokens = (await listAccessTokens(await registry())).filter((t) => mayManage(principal, owners, t.id));
  return { tokens: tokens.reverse() };
});

/**
 * POST /api/tokens {name, scope, kb?} — the secret is in this response only; just its hash is stored. A
 * person's token never reaches beyond their own grants, now or later (checked again on every use).
 */
export const POST = route({ status: 201 }, async ({ body, store, registry, principal, audit }) => {
  const input = await body(createTokenSchema);
  const write = input.scope === "read-write";
  if (write && !limitOfPrincipal(principal).write) throw new AppError("forbidden", "You may not make read-write tokens.");
  if (input.kb) requireKbAccess(principal, input.kb, write);
  const ready = await store();
  const made = await createAccessToken(ready, await registry(), input, (id) => recordOwner(principal, ready, "token", id));
  await audit("token_create", { kb: made.token.kb, target: made.token.id, detail: `${made.token.name} (${made.token.scope})` });
  return made;
});
