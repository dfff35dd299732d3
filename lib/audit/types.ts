/** The audit log's shapes. Types and constants only: the admin page imports them too. */

export const AUDIT_ACTIONS = [
  "sign_in",
  "sign_in_failed",
  "sign_out",
  /** A refused request (403) or one over a limit (429). */
  "access_denied",
  "user_invite",
  "user_join",
  "user_update",
  "user_delete",
  "kb_create",
  "kb_update",
  "kb_delete",
  "document_upload",
  "document_update",
  "document_delete",
  "reindex",
  "source_add",
  "source_update",
  "source_remove",
  "source_sync",
  "faq_create",
  "faq_update",
  "faq_delete",
  "token_create",
  "token_revoke",
  "oauth_grant",
  "oauth_revoke",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

const AUDIT_OUTCOMES = ["ok", "denied", "failed"] as const;
type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

export interface AuditEvent {
  id: string;
  /** ISO time. */
  at: string;
  /** Who: an account's e-mail, "local" (this machine without sign-in), "admin secret", or a token's name. */
  actor: string;
  /** The account id, when a person did it. */
  actorId: string | null;
  action: AuditAction;
  outcome: AuditOutcome;
  /** What: a document, user, token… id or name. */
  target: string | null;
  kb: string | null;
  /** More about it (a file name, a role change), free text. */
  detail: string | null;
  /** From where: the client address as the server knows it. */
  address: string;
}

export interface AuditFilter {
  actor?: string;
  action?: AuditAction;
  kb?: string;
  /** ISO times, inclusive. */
  since?: string;
  until?: string;
  limit?: number;
}

/** The CSV columns, in order. */
export const AUDIT_COLUMNS = ["at", "actor", "action", "outcome", "kb", "target", "detail", "address"] as const;
