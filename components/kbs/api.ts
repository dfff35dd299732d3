/** Browser calls to /api/kbs and /api/tokens (the shared client is components/api.ts). */
import { apiFetch } from "@/components/api";
import type { OAuthGrant } from "@/lib/auth/oauth/types";
import type { PublicToken, TokenScope } from "@/lib/credentials/token-types";
import type { KnowledgeBase } from "@/lib/kb/types";

/** How a knowledge base is named in pickers: its title, with the name when they differ. */
export function kbLabel(kb: Pick<KnowledgeBase, "name" | "title">): string {
  return kb.title && kb.title !== kb.name ? `${kb.title} (${kb.name})` : kb.name;
}

export const kbApi = {
  list: () => apiFetch<{ kbs: KnowledgeBase[]; access: { requireToken: boolean } }>("/api/kbs"),
  create: (body: { name: string; title?: string; description?: string }) =>
    apiFetch<{ kb: KnowledgeBase }>("/api/kbs", { method: "POST", body }),
  update: (name: string, body: { name?: string; title?: string; description?: string; instructions?: string }) =>
    apiFetch<{ kb: KnowledgeBase }>(`/api/kbs/${encodeURIComponent(name)}`, { method: "PATCH", body }),
  remove: (name: string) => apiFetch<{ documents: number }>(`/api/kbs/${encodeURIComponent(name)}`, { method: "DELETE" }),
};

export const tokenApi = {
  list: () => apiFetch<{ tokens: PublicToken[] }>("/api/tokens"),
  create: (body: { name: string; scope: TokenScope; kb?: string | null }) =>
    apiFetch<{ token: PublicToken; secret: string }>("/api/tokens", { method: "POST", body }),
  revoke: (id: string) => apiFetch<{ revoked: string }>(`/api/tokens/${encodeURIComponent(id)}`, { method: "DELETE" }),
};

export const grantApi = {
  list: () => apiFetch<{ grants: OAuthGrant[] }>("/api/oauth/grants"),
  revoke: (id: string) => apiFetch<{ revoked: string }>(`/api/oauth/grants/${encodeURIComponent(id)}`, { method: "DELETE" }),
};
