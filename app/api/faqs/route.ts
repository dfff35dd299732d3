import { addFaq, listFaqs } from "@/lib/faq/service";
import { route } from "@/lib/server/route";
import { faqCreateSchema, faqListQuerySchema } from "./schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** GET /api/faqs?kb=&q=&status= — a knowledge base's FAQ entries, newest first, or the best matches of q. */
export const GET = route({}, async ({ req, store }) => {
  const params = new URL(req.url).searchParams;
  const query = faqListQuerySchema.parse({
    kb: params.get("kb") ?? undefined,
    q: params.get("q") ?? undefined,
    status: params.get("status") ?? undefined,
  });
  return { faqs: await listFaqs(await store(), query) };
});

/** POST /api/faqs {question, answer, kb?, phrasings?, tags?, from?} — adds an entry. */
export const POST = route({ status: 201 }, async ({ body, store }) => ({ faq: await addFaq(await store(), await body(faqCreateSchema)) }));
