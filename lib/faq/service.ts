/** The FAQ operations behind /api/faqs (the routes stay thin). */
import { mayReadKb, type Principal } from "@/lib/auth/principal";
import { defaultKbName } from "@/lib/config";
import type { Store } from "@/lib/store";
import { AppError } from "@/lib/types";
import { getFaqStore } from "./store";
import type { FaqInput, FaqPatch, FaqRecord, FaqStatus } from "./types";

export async function listFaqs(store: Store, opts: { kb?: string; q?: string; status?: FaqStatus }): Promise<FaqRecord[]> {
  const faqs = await getFaqStore(store);
  if (opts.q) {
    const hits = await faqs.search(opts.q, { kbs: opts.kb ? [opts.kb] : undefined, limit: 50 });
    return hits.map((h) => h.faq).filter((f) => !opts.status || f.status === opts.status);
  }
  return faqs.list({ kb: opts.kb, status: opts.status });
}

/** A FAQ entry written by a person in the web app: typed in the FAQ tab, or promoted from a chat answer. */
export async function addFaq(store: Store, input: FaqInput & { from?: "ui" | "chat" }): Promise<FaqRecord> {
  const [faq] = await (await getFaqStore(store)).add([
    {
      kb: input.kb ?? defaultKbName(),
      question: input.question,
      answer: input.answer,
      phrasings: input.phrasings,
      tags: input.tags,
      source: { documentId: null, chunkId: null, label: input.from === "chat" ? "chat answer" : "UI" },
      origin: "manual",
    },
  ]);
  return faq;
}

/** The entry `id`; one in a knowledge base the principal may not read is answered exactly as one that does not exist. */
export async function getFaq(p: Principal, store: Store, id: string): Promise<FaqRecord> {
  const faq = await (await getFaqStore(store)).get(id);
  if (!faq || !mayReadKb(p)(faq.kb)) throw new AppError("not_found", "There is no such FAQ entry.");
  return faq;
}

export async function updateFaq(store: Store, id: string, patch: FaqPatch): Promise<FaqRecord> {
  const faq = await (await getFaqStore(store)).update(id, patch);
  if (!faq) throw new AppError("not_found", "There is no such FAQ entry.");
  return faq;
}

export async function deleteFaq(store: Store, id: string): Promise<void> {
  if (!(await (await getFaqStore(store)).delete(id))) throw new AppError("not_found", "There is no such FAQ entry.");
}
