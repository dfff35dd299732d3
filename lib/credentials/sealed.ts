/**
 * A secret at rest that the app must be able to read back (a provider's refresh token): AES-256-GCM under a
 * key derived from a server secret that is never stored beside it, and a purpose, so one key never opens
 * another kind of secret.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

const VERSION = "v1";

const keyOf = (serverSecret: string, purpose: string): Buffer => createHash("sha256").update(`${purpose}\u0000${serverSecret}`).digest();

/** `plain` sealed for storage under `serverSecret` for `purpose`. */
export function sealText(plain: string, serverSecret: string, purpose: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", keyOf(serverSecret, purpose), iv);
  const data = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return [VERSION, iv.toString("base64"), cipher.getAuthTag().toString("base64"), data.toString("base64")].join(".");
}

/** The text `sealText` sealed; null when it was sealed under another secret or purpose, or is not a sealed value. */
export function openText(sealed: string, serverSecret: string, purpose: string): string | null {
  const [version, iv, tag, data] = sealed.split(".");
  if (version !== VERSION || !iv || !tag || data === undefined) return null;
  try {
    const decipher = createDecipheriv("aes-256-gcm", keyOf(serverSecret, purpose), Buffer.from(iv, "base64"));
    decipher.setAuthTag(Buffer.from(tag, "base64"));
    return Buffer.concat([decipher.update(Buffer.from(data, "base64")), decipher.final()]).toString("utf8");
  } catch {
    return null;
  }
}
