import { checkManagementAccess, checkReadAccess, errorResponse, NO_STORE, readJson } from "@/lib/auth/admin";
import { addFaq, listFaqs } from "@/lib/faq/service";
import { getReadyStore } from "@/lib/server/startup";
import { faqCreateSchema, faqListQuerySchema } from "./schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** GET /api/faqs?kb=&q=&status= — a knowledge base's FAQ entries, newest first, or the best matches of q. */
export async function GET(request: Request): Promise<Response> {
  try {
    const denied = checkReadAccess(request);
    if (denied) throw denied;
    const params = new URL(request.url).searchParams;
    const query = faqListQuerySchema.parse({
      kb: params.get("kb") ?? undefined,
      q: params.get("q") ?? undefined,
      status: params.get("status") ?? undefined,
    });
    const faqs = await listFaqs(await getReadyStore(), query);
    return Response.json({ faqs }, { headers: NO_STORE });
  } catch (err) {
    return errorResponse(err);
  }
}

/** POST /api/faqs {question, answer, kb?, phrasings?, tags?, from?} — adds an entry. */
export async function POST(request: Request): Promise<Response> {
  try {
    const denied = checkManagementAccess(request);
    if (denied) throw denied;
    const input = faqCreateSchema.parse(await readJson(request));
    const faq = await addFaq(await getReadyStore(), input);
    return Response.json({ faq }, { status: 201, headers: NO_STORE });
  } catch (err) {
    return errorResponse(err);
  }
}
