import { checkManagementAccess, checkReadAccess, errorResponse, NO_STORE, readJson } from "@/lib/auth/admin";
import { deleteFaq, getFaq, updateFaq } from "@/lib/faq/service";
import { getReadyStore } from "@/lib/server/startup";
import { faqIdSchema, faqPatchSchema } from "../schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ id: string }> };

export async function GET(request: Request, { params }: Ctx): Promise<Response> {
  try {
    const denied = checkReadAccess(request);
    if (denied) throw denied;
    const faq = await getFaq(await getReadyStore(), faqIdSchema.parse((await params).id));
    return Response.json({ faq }, { headers: NO_STORE });
  } catch (err) {
    return errorResponse(err);
  }
}

/** PATCH /api/faqs/<id> — edit fields, or accept a generated pair ({status: "accepted"}). */
export async function PATCH(request: Request, { params }: Ctx): Promise<Response> {
  try {
    const denied = checkManagementAccess(request);
    if (denied) throw denied;
    const id = faqIdSchema.parse((await params).id);
    const patch = faqPatchSchema.parse(await readJson(request));
    const faq = await updateFaq(await getReadyStore(), id, patch);
    return Response.json({ faq }, { headers: NO_STORE });
  } catch (err) {
    return errorResponse(err);
  }
}

/** DELETE /api/faqs/<id> — delete an entry, or reject a generated pair. */
export async function DELETE(request: Request, { params }: Ctx): Promise<Response> {
  try {
    const denied = checkManagementAccess(request);
    if (denied) throw denied;
    await deleteFaq(await getReadyStore(), faqIdSchema.parse((await params).id));
    return Response.json({ deleted: true }, { headers: NO_STORE });
  } catch (err) {
    return errorResponse(err);
  }
}
