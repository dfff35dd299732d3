import { z } from "zod";
import { requireKbAccess } from "@/lib/auth/principal";
import { deleteFaq, getFaq, updateFaq } from "@/lib/faq/service";
import { route } from "@/lib/server/route";
import { faqIdSchema, faqPatchSchema } from "../schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const faqRoute = { params: z.object({ id: faqIdSchema }) };

export const GET = route(faqRoute, async ({ params: { id }, store, principal }) => {
  return { faq: await getFaq(principal, await store(), id) };
});

/** PATCH /api/faqs/<id> — edit fields, or accept a generated pair ({status: "accepted"}). */
export const PATCH = route(faqRoute, async ({ params: { id }, body, store, principal, audit }) => {
  const patch = await body(faqPatchSchema);
  requireKbAccess(principal, (await getFaq(principal, await store(), id)).kb, true);
  const faq = await updateFaq(await store(), id, patch);
  await audit("faq_update", { kb: faq.kb, target: id, detail: Object.keys(patch).join(", ") });
  return { faq };
});

/** DELETE /api/faqs/<id> — delete an entry, or reject a generated pair. */
export const DELETE = route(faqRoute, async ({ params: { id }, store, principal, audit }) => {
  const faq = await getFaq(principal, await store(), id);
  requireKbAccess(principal, faq.kb, true);
  await deleteFaq(await store(), id);
  await audit("faq_delete", { kb: faq.kb, target: id, detail: faq.question.slice(0, 200) });
  return { deleted: true };
});
