import { isIP } from "node:net";
import { getConfig } from "@/lib/config";

/** Access settings resolved from the environment (see .env.example, "Access"). */
export interface AuthSettings {
  /** MCP requests need a valid bearer token. */
  requireToken: boolean;
  /** The app only listens on a loopback address, so every request comes from this machine. */
  loopbackOnly: boolean;
  rateLimitPerMinute: number;
  allowedOrigins: string[];
  adminToken?: string;
}

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127\.\d+\.\d+\.\d+$/.test(h) || h === "::ffff:127.0.0.1";
}

function flag(raw: string): boolean | undefined {
  const v = raw.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(v)) return true;
  if (["0", "false", "no", "off"].includes(v)) return false;
  return undefined;
}

/**
 * The address the app listens on, as far as the environment tells: BIND_HOST (scripts/app.sh passes it to
 * `next start -H`), else HOSTNAME when it is an IP address (Next's standalone server listens on it; a
 * machine name in HOSTNAME says nothing). Unknown = loopback, the local single-user default.
 */
export function bindAddress(cfg: { bindHost?: string; hostname?: string }): string {
  if (cfg.bindHost) return cfg.bindHost;
  if (cfg.hostname && isIP(cfg.hostname.replace(/^\[|\]$/g, ""))) return cfg.hostname;
  return "127.0.0.1";
}

/** The raw settings (getConfig().auth); every field but the limit and origins is optional. */
export interface RawAuthConfig {
  requireToken?: string;
  bindHost?: string;
  hostname?: string;
  rateLimitPerMinute: number;
  allowedOrigins: string[];
  adminToken?: string;
}

export function resolveAuthSettings(cfg: RawAuthConfig = getConfig().auth): AuthSettings {
  const loopbackOnly = isLoopbackHost(bindAddress(cfg));
  // An unrecognised REQUIRE_TOKEN value errs on the safe side.
  const requireToken = cfg.requireToken !== undefined ? (flag(cfg.requireToken) ?? true) : !loopbackOnly;
  return {
    requireToken,
    loopbackOnly,
    rateLimitPerMinute: cfg.rateLimitPerMinute,
    allowedOrigins: cfg.allowedOrigins,
    adminToken: cfg.adminToken,
  };
}
