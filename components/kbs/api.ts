/** Browser calls to the app's API (/api/kbs, /api/tokens; authHeaders() for the rest), with the admin token when one is set. */

export interface KnowledgeBaseInfo {
  name: string;
  title: string;
  description: string;
  documentCount: number;
  isDefault: boolean;
  createdAt: string;
  updatedAt: string;
}

/** How a knowledge base is named in pickers: its title, with the name when they differ. */
export function kbLabel(kb: Pick<KnowledgeBaseInfo, "name" | "title">): string {
  return kb.title && kb.title !== kb.name ? `${kb.title} (${kb.name})` : kb.name;
}

export interface TokenInfo {
  id: string;
  name: string;
  scope: "read" | "read-write";
  kb: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  revoked: boolean;
}

export class ApiError extends Error {
  constructor(
    public readonly status: number,
    public readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const ADMIN_KEY = "kb-admin-token";

export function getAdminToken(): string {
  try {
    return localStorage.getItem(ADMIN_KEY) ?? "";
  } catch {
    return "";
  }
}

export function setAdminToken(token: string) {
  try {
    if (token) localStorage.setItem(ADMIN_KEY, token);
    else localStorage.removeItem(ADMIN_KEY);
  } catch {
    /* private mode: the token lasts for this page only */
  }
}

/** The Authorization header every call to the app's own API sends when an admin token is stored. */
export function authHeaders(): Record<string, string> {
  const admin = getAdminToken();
  return admin ? { authorization: `Bearer ${admin}` } : {};
}

export async function apiFetch<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const headers: Record<string, string> = authHeaders();
  if (init.body !== undefined) headers["content-type"] = "application/json";
  let res: Response;
  try {
    res = await fetch(path, {
      method: init.method ?? "GET",
      headers,
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
      cache: "no-store",
    });
  } catch {
    throw new ApiError(0, "network", "");
  }
  const json = (await res.json().catch(() => null)) as { error?: { code?: string; message?: string } } | null;
  if (!res.ok) throw new ApiError(res.status, json?.error?.code ?? "internal", json?.error?.message ?? res.statusText);
  return json as T;
}

export const kbApi = {
  list: () => apiFetch<{ kbs: KnowledgeBaseInfo[]; access: { requireToken: boolean } }>("/api/kbs"),
  create: (body: { name: string; title?: string; description?: string }) =>
    apiFetch<{ kb: KnowledgeBaseInfo }>("/api/kbs", { method: "POST", body }),
  update: (name: string, body: { name?: string; title?: string; description?: string }) =>
    apiFetch<{ kb: KnowledgeBaseInfo }>(`/api/kbs/${encodeURIComponent(name)}`, { method: "PATCH", body }),
  remove: (name: string) => apiFetch<{ documents: number }>(`/api/kbs/${encodeURIComponent(name)}`, { method: "DELETE" }),
};

export const tokenApi = {
  list: () => apiFetch<{ tokens: TokenInfo[] }>("/api/tokens"),
  create: (body: { name: string; scope: "read" | "read-write"; kb?: string | null }) =>
    apiFetch<{ token: TokenInfo; secret: string }>("/api/tokens", { method: "POST", body }),
  revoke: (id: string) => apiFetch<{ revoked: string }>(`/api/tokens/${encodeURIComponent(id)}`, { method: "DELETE" }),
};

/** Copies text; falls back to a hidden textarea where the Clipboard API is missing (plain http on a LAN). */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    /* fall through */
  }
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.appendChild(area);
  area.select();
  try {
    return document.execCommand("copy");
  } catch {
    return false;
  } finally {
    area.remove();
  }
}
