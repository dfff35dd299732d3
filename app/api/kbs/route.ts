import { resolveAuthSettings } from "@/lib/auth/config";
import { callerOf } from "@/lib/auth/peer";
import { createKnowledgeBase, listKnowledgeBases } from "@/lib/kb";
import { route } from "@/lib/server/route";
import { createKbSchema } from "./schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** GET /api/kbs — every knowledge base with its document count (the default one first). */
export const GET = route({}, async ({ req, store, registry }) => {
  const kbs = await listKnowledgeBases(await store(), await registry());
  kbs.sort((a, b) => Number(b.isDefault) - Number(a.isDefault) || a.name.localeCompare(b.name));
  // What the Connect dialog needs to know to show a token placeholder: whether an MCP client where this
  // browser runs needs one (clients on other machines always do).
  const settings = resolveAuthSettings();
  const access = { requireToken: settings.requireToken || !callerOf(req, settings.trustedProxies).local };
  return { kbs, access };
});

/** POST /api/kbs {name, title?, description?} — creates an empty knowledge base. */
export const POST = route({ status: 201 }, async ({ body, store, registry }) => {
  const input = await body(createKbSchema);
  return { kb: await createKnowledgeBase(await store(), await registry(), input) };
});
