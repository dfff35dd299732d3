import { checkManagementAccess, checkReadAccess, errorResponse, NO_STORE, readJson } from "@/lib/auth/admin";
import { resolveAuthSettings } from "@/lib/auth/config";
import { createKnowledgeBase, getRegistry, listKnowledgeBases } from "@/lib/kb";
import { getReadyStore } from "@/lib/server/startup";
import { createKbSchema } from "./schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** GET /api/kbs — every knowledge base with its document count (the default one first). */
export async function GET(req: Request): Promise<Response> {
  try {
    const denied = checkReadAccess(req);
    if (denied) throw denied;
    const store = await getReadyStore();
    const kbs = await listKnowledgeBases(store, await getRegistry(store.uri));
    kbs.sort((a, b) => Number(b.isDefault) - Number(a.isDefault) || a.name.localeCompare(b.name));
    // What the Connect dialog needs to know to show a token placeholder in client configurations.
    const access = { requireToken: resolveAuthSettings().requireToken };
    return Response.json({ kbs, access }, { headers: NO_STORE });
  } catch (err) {
    return errorResponse(err);
  }
}

/** POST /api/kbs {name, title?, description?} — creates an empty knowledge base. */
export async function POST(req: Request): Promise<Response> {
  try {
    const denied = checkManagementAccess(req);
    if (denied) throw denied;
    const input = createKbSchema.parse(await readJson(req));
    const store = await getReadyStore();
    const kb = await createKnowledgeBase(store, await getRegistry(store.uri), input);
    return Response.json({ kb }, { status: 201, headers: NO_STORE });
  } catch (err) {
    return errorResponse(err);
  }
}
