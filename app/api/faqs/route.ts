import { mayReadKb, requireKbAccess } from "@/lib/auth/principal";
import { getConfig } from "@/lib/config";
import { addFaq, listFaqs } from "@/lib/faq/service";
import { route } from "@/lib/server/route";
import { faqCreateSchema, faqListQuerySchema } from "./schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** GET /api/faqs?kb=&q=&status= — a knowledge base's FAQ entries, newest first, or the best matches of q. */
export const GET = route({}, async ({ req, store, principal }) => {
  const params = new URL(req.url).searchParams;
  const query = faqListQuerySchema.parse({
    kb: params.get("kb") ?? undefined,
    q: params.get("q") ?? undefined,
    status: params.get("status") ?? undefined,
  });
  if (query.kb) requireKbAccess(principal, query.kb, false);
  const readable = mayReadKb(principal);
  return { faqs: (await listFaqs(await store(), query)).filter((f) => readable(f.kb)) };
});

/** POST /api/faqs {question, answer, kb?, phrasings?, tags?, from?} — adds an entry. */
export const POST = route({ status: 201 }, async ({ body, store, principal, audit }) => {
  const input = await body(faqCreateSchema);
  requireKbAccess(principal, input.kb ?? getConfig().defaultKb, true);
  const faq = await addFaq(await store(), input);
  await audit("faq_create", { kb: faq.kb, target: faq.id, detail: faq.question.slice(0, 200) });
  return { faq };
});
