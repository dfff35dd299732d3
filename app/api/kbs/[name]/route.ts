import { checkManagementAccess, checkReadAccess, errorResponse, NO_STORE, readJson } from "@/lib/auth/admin";
import { deleteKnowledgeBase, getKnowledgeBase, getRegistry, updateKnowledgeBase } from "@/lib/kb";
import { getReadyStore } from "@/lib/server/startup";
import { AppError } from "@/lib/types";
import { kbParamSchema, updateKbSchema } from "../schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ name: string }> };

async function kbName(params: Ctx["params"]): Promise<string> {
  const parsed = kbParamSchema.safeParse((await params).name);
  if (!parsed.success) throw new AppError("not_found", "There is no such knowledge base.", 404);
  return parsed.data;
}

/** GET /api/kbs/<name> */
export async function GET(req: Request, { params }: Ctx): Promise<Response> {
  try {
    const denied = checkReadAccess(req);
    if (denied) throw denied;
    const name = await kbName(params);
    const store = await getReadyStore();
    const kb = await getKnowledgeBase(store, await getRegistry(store.uri), name);
    if (!kb) throw new AppError("not_found", `There is no knowledge base named "${name}".`, 404);
    return Response.json({ kb }, { headers: NO_STORE });
  } catch (err) {
    return errorResponse(err);
  }
}

/** PATCH /api/kbs/<name> {title?, description?, name?} — describe, or rename (moves its documents). */
export async function PATCH(req: Request, { params }: Ctx): Promise<Response> {
  try {
    const denied = checkManagementAccess(req);
    if (denied) throw denied;
    const name = await kbName(params);
    const patch = updateKbSchema.parse(await readJson(req));
    const store = await getReadyStore();
    const kb = await updateKnowledgeBase(store, await getRegistry(store.uri), name, patch);
    return Response.json({ kb }, { headers: NO_STORE });
  } catch (err) {
    return errorResponse(err);
  }
}

/** DELETE /api/kbs/<name> — deletes the knowledge base with all its documents (not the default one). */
export async function DELETE(req: Request, { params }: Ctx): Promise<Response> {
  try {
    const denied = checkManagementAccess(req);
    if (denied) throw denied;
    const name = await kbName(params);
    const store = await getReadyStore();
    const { documents } = await deleteKnowledgeBase(store, await getRegistry(store.uri), name);
    return Response.json({ deleted: name, documents }, { headers: NO_STORE });
  } catch (err) {
    return errorResponse(err);
  }
}
