import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { PublicToken } from "./token-types";

export type { PublicToken, TokenScope } from "./token-types";

export interface AccessToken extends PublicToken {
  /** sha256 of the secret, hex. The secret itself is shown once and never stored. */
  hash: string;
}

const PREFIX = "kbt_";

/** A new random secret, recognisable by its prefix (helps secret scanners). */
export function generateTokenSecret(): string {
  return PREFIX + randomBytes(24).toString("base64url");
}

export function hashTokenSecret(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

/** Constant-time lookup of a presented secret among stored tokens; revoked tokens never match. */
export function findToken(tokens: readonly AccessToken[], secret: string): AccessToken | null {
  const presented = Buffer.from(hashTokenSecret(secret), "hex");
  let found: AccessToken | null = null;
  for (const t of tokens) {
    const stored = Buffer.from(t.hash, "hex");
    if (stored.length === presented.length && timingSafeEqual(stored, presented) && !t.revoked) found = t;
  }
  return found;
}

/** A token as the management API shows it: never the hash. */
export function publicToken(t: AccessToken): PublicToken {
  return { id: t.id, name: t.name, scope: t.scope, kb: t.kb, createdAt: t.createdAt, lastUsedAt: t.lastUsedAt, revoked: t.revoked };
}

/** The bearer secret from an Authorization header, or null. */
export function bearerSecret(authorization: string | null): string | null {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
  return m ? m[1] : null;
}

export function canWrite(token: Pick<AccessToken, "scope"> | null): boolean {
  return token?.scope === "read-write";
}
