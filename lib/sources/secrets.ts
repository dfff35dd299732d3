/**
 * Secrets of sources (Git tokens, S3 keys) at rest: AES-256-GCM with a key derived from SOURCE_SECRET_KEY.
 * Without that variable no secret is stored (the add is refused), so a secret never lands on disk in clear.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { AppError } from "@/lib/types";
import type { SourceSecrets } from "./schema";

const VERSION = "v1";

function key(): Buffer | null {
  const raw = process.env.SOURCE_SECRET_KEY?.trim();
  if (!raw) return null;
  if (raw.length < 16) throw new AppError("bad_request", "SOURCE_SECRET_KEY must be at least 16 characters.");
  return createHash("sha256").update(`kb-sources\u0000${raw}`).digest();
}

/** Start-up check: a SOURCE_SECRET_KEY that is set must be long enough (throws, naming the variable). */
export function checkSourceSecretKey(): void {
  key();
}

/** The secrets sealed for storage ("" when there are none); refused without SOURCE_SECRET_KEY. */
export function sealSecrets(secrets: SourceSecrets): string {
  if (Object.values(secrets).every((v) => !v)) return "";
  const k = key();
  if (!k)
    throw new AppError(
      "bad_request",
      "This source needs a secret (token or key), and the server has no SOURCE_SECRET_KEY to store it encrypted. Ask an admin to set it.",
    );
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", k, iv);
  const data = Buffer.concat([cipher.update(JSON.stringify(secrets), "utf8"), cipher.final()]);
  return [VERSION, iv.toString("base64"), cipher.getAuthTag().toString("base64"), data.toString("base64")].join(".");
}

/** The secrets of a stored source; throws when the key is missing or another one. */
export function openSecrets(sealed: string): SourceSecrets {
  if (!sealed) return {};
  const k = key();
  if (!k) throw new Error("SOURCE_SECRET_KEY is not set: this source's secrets cannot be read.");
  const [version, iv, tag, data] = sealed.split(".");
  if (version !== VERSION) throw new Error("unknown secret format");
  const decipher = createDecipheriv("aes-256-gcm", k, Buffer.from(iv, "base64"));
  decipher.setAuthTag(Buffer.from(tag, "base64"));
  try {
    return JSON.parse(Buffer.concat([decipher.update(Buffer.from(data, "base64")), decipher.final()]).toString("utf8"));
  } catch {
    throw new Error("this source's secrets were sealed with another SOURCE_SECRET_KEY");
  }
}
