/**
 * The owner sign-in link's secrets, each good for one sign-in:
 *
 * - the one server.mjs makes at start and prints (KB_OWNER_TOKEN), used up in this process at its first use;
 * - one asked for later with `npm run owner-link` on the server's machine: that command writes its SHA-256 and
 *   expiry beside the admin secret's hash (mode 0600), and the server takes it from there. Writing that folder
 *   is the proof of being the owner — a channel no proxy relays and no header can fake. A new request replaces
 *   an unused one; the first sign-in with it deletes the file, so a second (or a concurrent one) finds nothing.
 *
 * A used link in a proxy's access log or a browser's history is worth nothing.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { getConfig } from "@/lib/config";
import { hashTokenSecret } from "@/lib/credentials/tokens";
import { processGlobal } from "@/lib/process-global";
import { adminSecretFile } from "./admin-secret";
import { safeEqual } from "./internal";

/** How long a link asked for with `npm run owner-link` stays good if nobody opens it. */
export const REQUESTED_LINK_MINUTES = 15;

/** Where a requested link waits for its one use: beside the admin secret's hash. */
function requestedLinkFile(cfg = getConfig()): string {
  return path.join(path.dirname(adminSecretFile(cfg)), "owner-link.json");
}

/** A new owner-link secret for `npm run owner-link` (it replaces an unused one); the server takes it once. */
export function requestOwnerLinkToken(cfg = getConfig(), now = Date.now()): string {
  const token = randomBytes(24).toString("base64url");
  const file = requestedLinkFile(cfg);
  const pending = `${file}.${process.pid}.tmp`;
  mkdirSync(/*turbopackIgnore: true*/ path.dirname(file), { recursive: true });
  const record = { hash: hashTokenSecret(token), expiresAt: new Date(now + REQUESTED_LINK_MINUTES * 60_000).toISOString() };
  writeFileSync(/*turbopackIgnore: true*/ pending, `${JSON.stringify(record)}\n`, { mode: 0o600 });
  renameSync(/*turbopackIgnore: true*/ pending, file);
  return token;
}

/** Whether `presented` is a good owner-link secret; if so it is used up (true once per secret). */
export function redeemOwnerLinkToken(presented: string, startupToken: string | undefined, now = Date.now()): boolean {
  if (!presented) return false;
  const used = processGlobal("owner-link-used", () => new Set<string>());
  // Checked and marked in one synchronous step: two requests at once cannot both pass.
  if (startupToken && !used.has(startupToken) && safeEqual(presented, startupToken)) {
    used.add(startupToken);
    return true;
  }
  const file = requestedLinkFile();
  let record: { hash?: unknown; expiresAt?: unknown };
  try {
    record = JSON.parse(readFileSync(/*turbopackIgnore: true*/ file, "utf8"));
  } catch {
    return false;
  }
  if (typeof record.hash !== "string" || !safeEqual(hashTokenSecret(presented), record.hash)) return false;
  if (typeof record.expiresAt !== "string" || !(Date.parse(record.expiresAt) > now)) return false;
  try {
    unlinkSync(/*turbopackIgnore: true*/ file); // only one unlink of it succeeds
    return true;
  } catch {
    return false;
  }
}
