/** Browser calls to /api/faqs (with the admin token when one is stored). */
import { apiFetch } from "@/components/api";
import type { FaqPatch, FaqRecord, FaqStatus } from "@/lib/faq/types";

export type { FaqRecord };

export const faqApi = {
  list: (q: { kb?: string; q?: string; status?: FaqStatus }) => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(q)) if (v) params.set(k, v);
    return apiFetch<{ faqs: FaqRecord[] }>(`/api/faqs?${params}`);
  },
  add: (body: { question: string; answer: string; kb?: string; phrasings?: string[]; tags?: string[]; from?: "ui" | "chat" }) =>
    apiFetch<{ faq: FaqRecord }>("/api/faqs", { method: "POST", body }),
  update: (id: string, body: FaqPatch) => apiFetch<{ faq: FaqRecord }>(`/api/faqs/${encodeURIComponent(id)}`, { method: "PATCH", body }),
  remove: (id: string) => apiFetch<{ deleted: boolean }>(`/api/faqs/${encodeURIComponent(id)}`, { method: "DELETE" }),
};

/** Phrasings are typed one per line. */
export function splitLines(s: string): string[] {
  return s
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
}
