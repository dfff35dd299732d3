/**
 * Who may do what: the roles of a team and the one rule per action. Browser-safe (types and pure functions):
 * the server decides with these, and the pages use the same functions to show only what is allowed.
 */
import { isAttachmentKb } from "@/lib/tools/scope";

/** admin: everything; editor: read and change the knowledge bases granted to them; reader: chat and search in theirs. */
export const ROLES = ["admin", "editor", "reader"] as const;
export type Role = (typeof ROLES)[number];

/** The person behind a request as the browser sees it (GET /api/session). */
export interface Viewer {
  /** "owner": this machine without sign-in, or the admin secret (everything). "user": a signed-in account. */
  kind: "owner" | "user";
  id: string | null;
  email: string | null;
  name: string | null;
  role: Role;
  /** The knowledge bases granted (an admin's list is empty: an admin has them all). */
  kbs: string[];
  /** An owner signed in with the admin secret (a session that can sign out), not this machine without sign-in. */
  signedIn?: boolean;
}

/** What a role grants over a set of knowledge bases; `kbs: null` means every one. */
export interface AccessLimit {
  kbs: readonly string[] | null;
  write: boolean;
}

export function limitOf(grants: { role: Role; kbs: readonly string[] }): AccessLimit {
  if (grants.role === "admin") return { kbs: null, write: true };
  return { kbs: grants.kbs, write: grants.role === "editor" };
}

/** Whether the limit reads knowledge base `kb`; never a question's attachment, which only its owner reads by id (lib/auth/scope.ts). */
export function mayRead(limit: AccessLimit, kb: string): boolean {
  if (isAttachmentKb(kb)) return false;
  return limit.kbs === null || limit.kbs.includes(kb);
}

export function mayWrite(limit: AccessLimit, kb: string): boolean {
  return limit.write && mayRead(limit, kb);
}

/** The knowledge bases of `all` this limit reaches. */
export function readableOf(limit: AccessLimit, all: readonly string[]): string[] {
  return limit.kbs === null ? [...all] : all.filter((k) => limit.kbs!.includes(k));
}
