import { resolveAuthSettings } from "@/lib/auth/config";
import { callerOf } from "@/lib/auth/peer";
import { mayReadKb } from "@/lib/auth/principal";
import { createKnowledgeBase, listKnowledgeBases } from "@/lib/kb";
import { route } from "@/lib/server/route";
import { createKbSchema } from "./schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** GET /api/kbs — every knowledge base with its document count (the default one first). */
export const GET = route({}, async ({ req, store, registry, principal }) => {
  const readable = mayReadKb(principal);
  const kbs = (await listKnowledgeBases(await store(), await registry())).filter((kb) => readable(kb.name));
  kbs.sort((a, b) => Number(b.isDefault) - Number(a.isDefault) || a.name.localeCompare(b.name));
  // What the Connect dialog needs to know to show a token placeholder: whether an MCP client where this
  // browser runs needs one (clients on other machines always do).
  const settings = resolveAuthSettings();
  const access = { requireToken: settings.requireToken || !callerOf(req, settings).local };
  return { kbs, access };
});

/** POST /api/kbs {name, title?, description?} — creates an empty knowledge base. */
export const POST = route({ access: "admin", status: 201 }, async ({ body, store, registry, audit }) => {
  const input = await body(createKbSchema);
  const kb = await createKnowledgeBase(await store(), await registry(), input);
  await audit("kb_create", { kb: kb.name });
  return { kb };
});
