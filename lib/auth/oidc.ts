/**
 * Single sign-on through OpenID Connect (openid-client): authorization code with PKCE, state and nonce kept in
 * a short-lived HttpOnly cookie of the browser that started it. Who may join and with which role is decided
 * by ssoGrants from the configured rules; a person who already has an account signs in to it.
 */
import * as client from "openid-client";
import { cookieValue, setCookie } from "@/lib/auth/cookies";
import { ROLES, type Role } from "@/lib/auth/roles";
import { getConfig, publicBaseUrl } from "@/lib/config";

const OIDC_COOKIE = "kb_oidc";
const FLOW_SECONDS = 600;
const OIDC_CALLBACK_PATH = "/api/auth/oidc/callback";
const PROVIDER_TIMEOUT_S = 10;
/** The OpenID Connect limit on a subject; an e-mail address is at most 254 characters. */
const MAX_SUBJECT_CHARS = 255;
const MAX_EMAIL_CHARS = 254;

export type OidcConfig = ReturnType<typeof getConfig>["oidc"];

export function oidcEnabled(cfg: OidcConfig = getConfig().oidc): boolean {
  return Boolean(cfg.issuer && cfg.clientId);
}

let discovered: { key: string; config: Promise<client.Configuration> } | null = null;

function configuration(cfg: OidcConfig): Promise<client.Configuration> {
  const key = `${cfg.issuer}\u0000${cfg.clientId}`;
  if (discovered?.key !== key) {
    const config = client.discovery(
      new URL(cfg.issuer!),
      cfg.clientId!,
      cfg.clientSecret,
      undefined,
      cfg.allowInsecureIssuer ? { execute: [client.allowInsecureRequests] } : undefined,
    );
    config.then(
      (c) => {
        // A re-check runs inside a request (lib/auth/accounts/sso-recheck.ts): a provider that hangs must not hold it long.
        c.timeout = PROVIDER_TIMEOUT_S;
      },
      () => {},
    );
    discovered = { key, config };
    config.catch(() => {
      if (discovered?.config === config) discovered = null;
    });
  }
  return discovered.config;
}

const redirectUri = () => `${publicBaseUrl()}${OIDC_CALLBACK_PATH}`;

const flowCookie = (value: string, maxAge: number): string => setCookie(OIDC_COOKIE, value, maxAge, { path: "/api/auth/oidc" });

/**
 * `offline_access` too where the provider offers it (Entra ID, Okta, Keycloak): its refresh token then outlives the
 * provider's browser session, so membership can be checked again without the person (./accounts/sso-recheck.ts).
 */
const scopesFor = (config: client.Configuration): string =>
  config.serverMetadata().scopes_supported?.includes("offline_access") ? "openid email profile offline_access" : "openid email profile";

/** Where to send the browser to sign in at the provider, and the cookie that remembers this attempt. */
export async function beginSso(): Promise<{ location: string; cookie: string }> {
  const cfg = getConfig().oidc;
  const config = await configuration(cfg);
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri(),
    scope: scopesFor(config),
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state,
    nonce,
  });
  const value = Buffer.from(JSON.stringify({ verifier, state, nonce })).toString("base64url");
  return { location: url.href, cookie: flowCookie(value, FLOW_SECONDS) };
}

export const clearedFlowCookie = (): string => flowCookie("", 0);

export interface SsoClaims {
  /** The provider's id of the person: with the issuer, what an account is linked by. */
  subject: string;
  email: string;
  /** True only when the provider asserts `email_verified: true`; an absent claim is unverified. */
  emailVerified: boolean;
  name: string;
  groups: string[];
  issuer: string;
}

/** A provider answer the app cannot take: a subject or e-mail claim with control characters or past its length limit. */
export class SsoClaimError extends Error {}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused
const CONTROL = /[\u0000-\u001f\u007f]/;

/** The claims of an ID token or userinfo answer as the app uses them; SsoClaimError for a subject or address it cannot store. */
function claimsOf(raw: Record<string, unknown>, cfg: OidcConfig, issuer: string): SsoClaims {
  const subject = String(raw.sub ?? "");
  if (!subject || subject.length > MAX_SUBJECT_CHARS || CONTROL.test(subject))
    throw new SsoClaimError("the provider sent an invalid subject");
  const email = typeof raw.email === "string" ? raw.email : "";
  if (email.length > MAX_EMAIL_CHARS || CONTROL.test(email)) throw new SsoClaimError("the provider sent an invalid e-mail address");
  const groups = raw[cfg.groupsClaim];
  return {
    subject,
    email,
    emailVerified: raw.email_verified === true,
    name: typeof raw.name === "string" ? raw.name.replace(new RegExp(CONTROL.source, "g"), "").slice(0, 100) : "",
    groups: Array.isArray(groups) ? groups.map(String) : typeof groups === "string" ? [groups] : [],
    issuer,
  };
}

/** The claims of a token answer: its ID token's, with userinfo's when the ID token names no address. */
async function claimsOfTokens(
  config: client.Configuration,
  tokens: Pick<Awaited<ReturnType<typeof client.refreshTokenGrant>>, "claims" | "access_token">,
  cfg: OidcConfig,
  expectedSubject: string | null,
): Promise<SsoClaims> {
  let claims: Record<string, unknown> = { ...tokens.claims() };
  const subject = expectedSubject ?? String(claims.sub);
  if (!claims.email && tokens.access_token) {
    claims = { ...claims, ...(await client.fetchUserInfo(config, tokens.access_token, subject)) };
  }
  if (expectedSubject && claims.sub !== expectedSubject) throw new SsoClaimError("the provider answered for another subject");
  return claimsOf(claims, cfg, config.serverMetadata().issuer);
}

/**
 * Completes the code exchange of a callback (`callbackUrl` as the browser reached it) with the attempt's cookie
 * value: the person's claims, and the provider's refresh token when it gave one (kept sealed for re-checks).
 */
export async function finishSso(callbackUrl: URL, cookieValue: string | null): Promise<SsoClaims & { refreshToken: string | null }> {
  if (!cookieValue) throw new Error("The sign-in attempt has expired; start again.");
  const { verifier, state, nonce } = JSON.parse(Buffer.from(cookieValue, "base64url").toString("utf8")) as Record<string, string>;
  const cfg = getConfig().oidc;
  const config = await configuration(cfg);
  // The provider sends the browser back to the public URL; match it whatever address served this request.
  const current = new URL(redirectUri());
  current.search = callbackUrl.search;
  const tokens = await client.authorizationCodeGrant(config, current, {
    pkceCodeVerifier: verifier,
    expectedState: state,
    expectedNonce: nonce,
    idTokenExpected: true,
  });
  return { ...(await claimsOfTokens(config, tokens, cfg, null)), refreshToken: tokens.refresh_token ?? null };
}

/**
 * Asks the provider about a person again with their refresh token: their current claims and the rotated
 * refresh token, or `refused` when the provider no longer honours the token (OAuth `invalid_grant`: revoked,
 * expired, or the person is gone). Throws when the provider cannot be asked (down, timed out, a bad answer).
 */
export async function refreshSso(
  refreshToken: string,
  subject: string,
  cfg: OidcConfig = getConfig().oidc,
): Promise<{ claims: SsoClaims; refreshToken: string } | { refused: string }> {
  const config = await configuration(cfg);
  let tokens: Awaited<ReturnType<typeof client.refreshTokenGrant>>;
  try {
    tokens = await client.refreshTokenGrant(config, refreshToken);
  } catch (err) {
    if (err instanceof client.ResponseBodyError && err.error === "invalid_grant") return { refused: err.error_description ?? err.error };
    throw err;
  }
  return { claims: await claimsOfTokens(config, tokens, cfg, subject), refreshToken: tokens.refresh_token ?? refreshToken };
}

/** The flow cookie's value in a Cookie header. */
export const flowCookieValue = (cookieHeader: string | null): string | null => cookieValue(cookieHeader, OIDC_COOKIE);

const RANK: Record<Role, number> = { admin: 3, editor: 2, reader: 1 };

/** The highest role OIDC_GROUP_ROLES ("group=role,…") gives these groups; null when none does. */
function groupRole(groups: readonly string[], cfg: Pick<OidcConfig, "groupRoles">): Role | null {
  let role: Role | null = null;
  for (const rule of cfg.groupRoles) {
    const eq = rule.lastIndexOf("=");
    const group = rule.slice(0, eq).trim();
    const r = rule.slice(eq + 1).trim() as Role;
    if (eq > 0 && ROLES.includes(r) && groups.includes(group) && (!role || RANK[r] > RANK[role])) role = r;
  }
  return role;
}

export const defaultSsoRole = (cfg: Pick<OidcConfig, "defaultRole">): Role =>
  ROLES.includes(cfg.defaultRole as Role) ? (cfg.defaultRole as Role) : "reader";

/** Why single sign-on refused someone: a code the sign-in page turns into a message (never free text in a URL). */
export type SsoRefusal = "sso_failed" | "sso_bad_claims" | "sso_no_email" | "sso_unverified" | "sso_not_allowed" | "sso_account_exists";

/**
 * Whether this person qualifies through single sign-on, at every sign-in: a group listed in OIDC_GROUP_ROLES
 * (its role, the highest of several), or a *verified* address in OIDC_ALLOWED_DOMAINS (OIDC_DEFAULT_ROLE).
 * `groupRole` is null when the domain alone qualifies.
 */
export function ssoQualifies(
  claims: Pick<SsoClaims, "email" | "emailVerified" | "groups">,
  cfg: OidcConfig,
): { role: Role; groupRole: Role | null } | { refused: SsoRefusal } {
  const byGroup = groupRole(claims.groups, cfg);
  if (byGroup) return { role: byGroup, groupRole: byGroup };
  const email = claims.email.trim().toLowerCase();
  if (!email.includes("@")) return { refused: "sso_no_email" };
  if (!cfg.allowedDomains.includes(email.slice(email.lastIndexOf("@") + 1))) return { refused: "sso_not_allowed" };
  if (!claims.emailVerified) return { refused: "sso_unverified" };
  return { role: defaultSsoRole(cfg), groupRole: null };
}

/** Whether the provider vouches for this address in a domain of OIDC_ALLOWED_DOMAINS: the only case an existing account is linked by e-mail. */
export function mayLinkByEmail(claims: Pick<SsoClaims, "email" | "emailVerified">, cfg: Pick<OidcConfig, "allowedDomains">): boolean {
  const email = claims.email.trim().toLowerCase();
  return claims.emailVerified && email.includes("@") && cfg.allowedDomains.includes(email.slice(email.lastIndexOf("@") + 1));
}
