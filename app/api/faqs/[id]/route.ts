import { z } from "zod";
import { deleteFaq, getFaq, updateFaq } from "@/lib/faq/service";
import { route } from "@/lib/server/route";
import { faqIdSchema, faqPatchSchema } from "../schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const faqRoute = { params: z.object({ id: faqIdSchema }) };

export const GET = route(faqRoute, async ({ params: { id }, store }) => ({ faq: await getFaq(await store(), id) }));

/** PATCH /api/faqs/<id> — edit fields, or accept a generated pair ({status: "accepted"}). */
export const PATCH = route(faqRoute, async ({ params: { id }, body, store }) => ({
  faq: await updateFaq(await store(), id, await body(faqPatchSchema)),
}));

/** DELETE /api/faqs/<id> — delete an entry, or reject a generated pair. */
export const DELETE = route(faqRoute, async ({ params: { id }, store }) => {
  await deleteFaq(await store(), id);
  return { deleted: true };
});
