import type { BlockList } from "node:net";
import { getConfig } from "@/lib/config";
import { type ProxyHeader, parseProxyHeader, parseTrustedProxies } from "./peer";

/** Access settings resolved from the environment (see .env.example, "Access"). */
export interface AuthSettings {
  /** REQUIRE_TOKEN=1: requests from this machine need credentials too. Remote requests always do. */
  requireToken: boolean;
  rateLimitPerMinute: number;
  /** Failed authentications a minute per client address before 429 (default 10). */
  authFailuresPerMinute?: number;
  allowedOrigins: string[];
  adminToken?: string;
  /** Default: none. */
  trustedProxies?: BlockList;
  /** The one header a trusted proxy's client is read from (TRUSTED_PROXY_HEADER). Default: x-forwarded-for. */
  trustedProxyHeader?: ProxyHeader;
  /** REQUIRE_LOGIN=1 (or REQUIRE_TOKEN=1): the web app asks this machine to sign in too. */
  requireLogin?: boolean;
  /**
   * LOCAL_OWNER=1 without PUBLIC_URL and TRUSTED_PROXIES: a loopback request with a loopback Host and no
   * forwarding header is the owner (tests, scripts). Off by default: a proxy on this host looks just like that.
   */
  localOwner?: boolean;
  /** The owner sign-in link's secret (server.mjs makes one per process); none: no link. */
  ownerLinkToken?: string;
  /** Default 168 (SESSION_HOURS). */
  sessionHours?: number;
  /** Default 72 (INVITE_HOURS). */
  inviteHours?: number;
  /** @deprecated Ignored: where the app listens no longer decides access (lib/auth/peer.ts does). */
  loopbackOnly?: boolean;
}

export { isLoopbackHostName as isLoopbackHost } from "./peer";

function flag(raw: string): boolean | undefined {
  const v = raw.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(v)) return true;
  if (["0", "false", "no", "off"].includes(v)) return false;
  return undefined;
}

/** The raw settings (getConfig().auth). */
export interface RawAuthConfig {
  requireToken?: string;
  rateLimitPerMinute: number;
  authFailuresPerMinute?: number;
  allowedOrigins: string[];
  adminToken?: string;
  trustedProxies?: string;
  trustedProxyHeader?: string;
  requireLogin?: string;
  localOwner?: string;
  ownerLinkToken?: string;
  publicUrl?: string;
  sessionHours?: number;
  inviteHours?: number;
}

export function resolveAuthSettings(cfg: RawAuthConfig = getConfig().auth): AuthSettings {
  // An unrecognised value errs on the safe side.
  const on = (raw: string | undefined) => (raw !== undefined ? (flag(raw) ?? true) : false);
  const requireToken = on(cfg.requireToken);
  return {
    requireToken,
    requireLogin: requireToken || on(cfg.requireLogin),
    localOwner: on(cfg.localOwner) && !cfg.publicUrl && !cfg.trustedProxies?.trim(),
    ownerLinkToken: cfg.ownerLinkToken,
    sessionHours: cfg.sessionHours ?? 168,
    inviteHours: cfg.inviteHours ?? 72,
    rateLimitPerMinute: cfg.rateLimitPerMinute,
    authFailuresPerMinute: cfg.authFailuresPerMinute ?? 10,
    allowedOrigins: cfg.allowedOrigins,
    adminToken: cfg.adminToken,
    trustedProxies: parseTrustedProxies(cfg.trustedProxies),
    trustedProxyHeader: parseProxyHeader(cfg.trustedProxyHeader),
  };
}
