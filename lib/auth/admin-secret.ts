/**
 * The secret for remote administration: ADMIN_TOKEN when set; otherwise one generated at first start,
 * printed once on the console and kept only as a SHA-256 hash (ADMIN_SECRET_FILE, default
 * <DATA_DIR>/admin-secret.sha256, mode 0600). Delete that file and restart to get a new one.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { getConfig } from "@/lib/config";
import { hashTokenSecret } from "@/lib/credentials/tokens";
import { safeEqual } from "./internal";

const KEY = Symbol.for("kb-mcp-chat.admin-secret-hash");
type G = typeof globalThis & { [KEY]?: string | null };

export function adminSecretFile(cfg = getConfig()): string {
  if (cfg.auth.adminSecretFile) return path.resolve(cfg.auth.adminSecretFile);
  const local = !/^[a-z][a-z0-9+.-]*:\/\//i.test(cfg.dataDir);
  return path.join(local ? cfg.dataDir : path.resolve(".data"), "admin-secret.sha256");
}

/** Creates the first-run secret when there is neither ADMIN_TOKEN nor a stored one; prints it once. */
export function ensureAdminSecret(cfg = getConfig()): void {
  if (cfg.auth.adminToken) return;
  const file = adminSecretFile(cfg);
  if (existsSync(/*turbopackIgnore: true*/ file)) return;
  const secret = `kba_${randomBytes(24).toString("base64url")}`;
  mkdirSync(/*turbopackIgnore: true*/ path.dirname(file), { recursive: true });
  writeFileSync(/*turbopackIgnore: true*/ file, `${hashTokenSecret(secret)}\n`, { mode: 0o600, flag: "wx" });
  (globalThis as G)[KEY] = undefined;
  console.log(
    `[auth] Admin secret for remote administration (shown only this once; its hash is in ${file}):\n` +
      `[auth]   ${secret}\n` +
      "[auth] Send it as a bearer token, or sign in with it at /signin (or set ADMIN_TOKEN). In this machine's browser, the owner sign-in link the server prints is enough.",
  );
}

function storedHash(): string | null {
  const g = globalThis as G;
  if (g[KEY] === undefined) {
    try {
      g[KEY] = readFileSync(/*turbopackIgnore: true*/ adminSecretFile(), "utf8").trim() || null;
    } catch {
      g[KEY] = null;
    }
  }
  return g[KEY] ?? null;
}

/** Whether `presented` is the admin secret (ADMIN_TOKEN, else the first-run one). Constant time. */
export function isAdminSecret(presented: string, adminToken = getConfig().auth.adminToken): boolean {
  if (adminToken) return safeEqual(presented, adminToken);
  const hash = storedHash();
  return hash !== null && safeEqual(hashTokenSecret(presented), hash);
}

/**
 * Whether the admin secret is beyond guessing, so no failure budget need stand in front of it: the generated one
 * (192 random bits), or an ADMIN_TOKEN of at least 32 characters (`openssl rand -base64 24`).
 */
export function adminSecretUnguessable(adminToken = getConfig().auth.adminToken): boolean {
  return !adminToken || adminToken.length >= 32;
}

/**
 * A short fingerprint of the current admin secret: a session made with the secret remembers it, and ends when
 * the secret changes (a new ADMIN_TOKEN, or a deleted secret file). Null when there is no secret.
 */
export function adminSecretFingerprint(adminToken = getConfig().auth.adminToken): string | null {
  const hash = adminToken ? hashTokenSecret(adminToken) : storedHash();
  return hash ? hash.slice(0, 16) : null;
}
