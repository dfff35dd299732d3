/** The columns an access token and an OAuth grant share: their id, dates and revoked flag. */
interface CredentialFields {
  id: string;
  createdAt: string;
  lastUsedAt: string | null;
  revoked: boolean;
}

/** A credential's shared fields read from its table row. */
export function credentialFromRow(r: Record<string, unknown>): CredentialFields {
  return {
    id: String(r.id),
    createdAt: String(r.created_at),
    lastUsedAt: r.last_used_at == null ? null : String(r.last_used_at),
    revoked: Boolean(r.revoked),
  };
}

/** A credential's shared fields as its table row's columns. */
export function credentialToRow(c: CredentialFields) {
  return { id: c.id, created_at: c.createdAt, last_used_at: c.lastUsedAt, revoked: c.revoked };
}
