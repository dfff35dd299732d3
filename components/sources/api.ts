/** Browser calls to /api/kbs/<kb>/sources. */
import { apiFetch } from "@/components/api";
import type { SourceView } from "@/lib/sources/schema";

const base = (kb: string) => `/api/kbs/${encodeURIComponent(kb)}/sources`;

export const sourceApi = {
  list: (kb: string) => apiFetch<{ sources: SourceView[] }>(base(kb)),
  add: (kb: string, body: Record<string, unknown>) => apiFetch<{ source: SourceView }>(base(kb), { method: "POST", body }),
  sync: (kb: string, id: string) => apiFetch<{ source: SourceView }>(`${base(kb)}/${encodeURIComponent(id)}/sync`, { method: "POST" }),
  /** Index all of a source whose first sync stopped at SOURCE_CONFIRM_OVER items. */
  confirm: (kb: string, id: string) =>
    apiFetch<{ source: SourceView }>(`${base(kb)}/${encodeURIComponent(id)}`, { method: "PATCH", body: { confirm: true } }),
  remove: (kb: string, id: string) => apiFetch<{ documents: number }>(`${base(kb)}/${encodeURIComponent(id)}`, { method: "DELETE" }),
};
