/**
 * The token endpoint (authorization_code with PKCE, refresh_token with rotation), the revocation endpoint
 * (RFC 7009) and dynamic client registration (RFC 7591). Every error is one of the SDK's OAuth error classes.
 *
 * Replays revoke: a code presented a second time, or a refresh token after it was rotated, revokes its whole
 * grant (every access and refresh token it issued) — one of the two presenters is not the client.
 */
import { createHash, randomBytes } from "node:crypto";
import {
  InvalidGrantError,
  InvalidRequestError,
  InvalidTargetError,
  MethodNotAllowedError,
  TooManyRequestsError,
  UnsupportedGrantTypeError,
} from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type { OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { resolveAuthSettings } from "@/lib/auth/config";
import { callerOf } from "@/lib/auth/peer";
import { addressKey } from "@/lib/auth/rate-limit";
import { authFailures, getRateLimiter } from "@/lib/auth/request";
import { readJsonBody } from "@/lib/http/body";
import type { OAuthDeps } from "./authorize";
import { authenticateClient, registerClient, resolveClient } from "./clients";
import { readForm } from "./form";
import { NO_STORE, oauthErrorResponse } from "./responses";
import { getOAuthStore, type OAuthStore } from "./store";
import type { OAuthGrant } from "./types";
import { parseResource, scopeOf } from "./urls";

const ACCESS_TOKEN_TTL_S = 3600;
const REFRESH_TOKEN_TTL_MS = 30 * 24 * 3600_000;

/** base64url(SHA-256(verifier)) = challenge, with a verifier of 43–128 unreserved characters (RFC 7636). */
function pkceMatches(verifier: string | null, challenge: string): boolean {
  if (!verifier || !/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) return false;
  return createHash("sha256").update(verifier).digest("base64url") === challenge;
}

/** A `resource` parameter at the token endpoint, when given, must name the grant's endpoint. */
function checkResource(form: URLSearchParams, grant: OAuthGrant) {
  const raw = form.get("resource");
  if (raw === null) return;
  const target = parseResource(raw);
  const bound = parseResource(grant.resource);
  if (!target || !bound || target.kb !== bound.kb) throw new InvalidTargetError("resource is not the endpoint this grant is for");
}

async function issueTokens(store: OAuthStore, grant: OAuthGrant, now = new Date()): Promise<OAuthTokens> {
  const access = `kboa_${randomBytes(32).toString("base64url")}`;
  const refresh = `kbor_${randomBytes(32).toString("base64url")}`;
  await store.addSecret(
    { kind: "access", grantId: grant.id, expiresAt: new Date(now.getTime() + ACCESS_TOKEN_TTL_S * 1000).toISOString(), data: null },
    access,
  );
  await store.addSecret(
    { kind: "refresh", grantId: grant.id, expiresAt: new Date(now.getTime() + REFRESH_TOKEN_TTL_MS).toISOString(), data: null },
    refresh,
  );
  return {
    access_token: access,
    token_type: "Bearer",
    expires_in: ACCESS_TOKEN_TTL_S,
    refresh_token: refresh,
    scope: scopeOf(grant.scope),
  };
}

async function exchangeCode(store: OAuthStore, form: URLSearchParams, clientId: string): Promise<OAuthTokens> {
  const code = form.get("code");
  if (!code) throw new InvalidRequestError("code is required");
  const stored = await store.findSecret(code, "code");
  if (!stored) throw guess(new InvalidGrantError("the authorization code is invalid"));
  const data = JSON.parse(stored.data ?? "{}") as { clientId?: string; redirectUri?: string; codeChallenge?: string };
  if (data.clientId !== clientId) throw new InvalidGrantError("the authorization code was issued to another client");
  if (stored.expiresAt <= new Date().toISOString()) throw new InvalidGrantError("the authorization code has expired");
  // Checked before the code is used up: a request that cannot be the client's (no verifier) or is its mistake
  // (another resource) leaves the code to the real client's retry; only a replay that passes them revokes.
  if (form.get("redirect_uri") !== data.redirectUri) throw new InvalidGrantError("redirect_uri does not match the authorization request");
  if (!pkceMatches(form.get("code_verifier"), data.codeChallenge ?? ""))
    throw new InvalidGrantError("code_verifier does not match the code challenge");
  const grant = await store.getGrant(stored.grantId);
  if (!grant || grant.revoked) throw new InvalidGrantError("the grant has been revoked");
  checkResource(form, grant);
  if (!(await store.consume(stored.hash))) {
    await store.revokeGrant(stored.grantId);
    throw new InvalidGrantError("the authorization code was already used; every token it issued is revoked");
  }
  await store.proveRedirect(clientId, data.redirectUri ?? "");
  return issueTokens(store, grant);
}

async function refresh(store: OAuthStore, form: URLSearchParams, clientId: string): Promise<OAuthTokens> {
  const token = form.get("refresh_token");
  if (!token) throw new InvalidRequestError("refresh_token is required");
  const stored = await store.findSecret(token, "refresh");
  if (!stored) throw guess(new InvalidGrantError("the refresh token is invalid"));
  const grant = await store.getGrant(stored.grantId);
  if (!grant || grant.clientId !== clientId) throw new InvalidGrantError("the refresh token was issued to another client");
  // Before the token is used up: a request for another endpoint is the client's mistake, not a replay.
  checkResource(form, grant);
  if (!(await store.consume(stored.hash))) {
    await store.revokeGrant(grant.id);
    throw new InvalidGrantError("the refresh token was already used; the grant is revoked");
  }
  if (grant.revoked) throw new InvalidGrantError("the grant has been revoked");
  if (stored.expiresAt <= new Date().toISOString()) throw new InvalidGrantError("the refresh token has expired");
  return issueTokens(store, grant);
}

/** Marks an error as a wrong secret (a client credential, a code or refresh token never issued): a guess. */
function guess<E extends Error>(err: E): E {
  return Object.assign(err, { guess: true });
}

/**
 * POST /oauth/token. Guesses count against the address's failed-authentication budget, as at the MCP
 * endpoint: past it a guess gets 429, while a real code or refresh token still passes, so bogus codes relayed
 * through a hosted app's shared address cannot lock its users out (an expired or used secret is no guess).
 */
export async function handleToken(req: Request, deps: OAuthDeps): Promise<Response> {
  const settings = deps.auth ?? resolveAuthSettings();
  const failures = authFailures(settings, callerOf(req, settings));
  try {
    if (req.method !== "POST") throw new MethodNotAllowedError("use POST");
    const form = await readForm(req);
    const store = await getOAuthStore(await deps.getStore());
    const client = await resolveClient(store, form.get("client_id"));
    await authenticateClient(client, form).catch((err: Error) => {
      throw guess(err);
    });
    const grantType = form.get("grant_type");
    const tokens =
      grantType === "authorization_code"
        ? await exchangeCode(store, form, client.clientId)
        : grantType === "refresh_token"
          ? await refresh(store, form, client.clientId)
          : (() => {
              throw new UnsupportedGrantTypeError('grant_type must be "authorization_code" or "refresh_token"');
            })();
    return Response.json(tokens, { headers: NO_STORE });
  } catch (err) {
    if ((err as { guess?: boolean }).guess && failures.fail())
      return oauthErrorResponse(new TooManyRequestsError("too many failed token requests from this address; try again in a minute"));
    return oauthErrorResponse(err);
  }
}

/** POST /oauth/revoke (RFC 7009): revokes the grant of an access or refresh token of this client; 200 whatever the token. */
export async function handleRevoke(req: Request, deps: OAuthDeps): Promise<Response> {
  try {
    const form = await readForm(req);
    const token = form.get("token");
    if (!token) throw new InvalidRequestError("token is required");
    const store = await getOAuthStore(await deps.getStore());
    const client = await resolveClient(store, form.get("client_id"));
    await authenticateClient(client, form);
    const hint = form.get("token_type_hint");
    const order = hint === "refresh_token" ? (["refresh", "access"] as const) : (["access", "refresh"] as const);
    for (const kind of order) {
      const stored = await store.findSecret(token, kind);
      if (!stored) continue;
      const grant = await store.getGrant(stored.grantId);
      if (grant && grant.clientId === client.clientId) await store.revokeGrant(grant.id);
      break;
    }
    return new Response(null, { status: 200, headers: NO_STORE });
  } catch (err) {
    return oauthErrorResponse(err);
  }
}

/**
 * Registrations per client address (an IPv6 /64 as one): each one is a stored row, and anyone may register.
 * 20 a minute, 30 an hour: the registry's 2,000 places, whose unused registrations go after an hour, take
 * some 70 addresses (or /64s) to fill.
 */
const REGISTRATIONS_PER_MINUTE = 20;
const REGISTRATIONS_PER_HOUR = 30;
/** A registration body is a few hundred bytes; the metadata it stores may hold 4 KB. */
const MAX_REGISTRATION_BYTES = 8 * 1024;

/** POST /oauth/register (RFC 7591): JSON in, the client information out (201). */
export async function handleRegister(req: Request, deps: OAuthDeps): Promise<Response> {
  try {
    const caller = callerOf(req, deps.auth ?? resolveAuthSettings());
    const key = addressKey(caller.address);
    const hourly = getRateLimiter(REGISTRATIONS_PER_HOUR, "oauth-register-hour", 3600);
    if (!hourly.peek(key)) throw new TooManyRequestsError("too many registrations from this address; try again in an hour");
    if (!getRateLimiter(REGISTRATIONS_PER_MINUTE, "oauth-register").take(key).allowed) {
      throw new TooManyRequestsError("too many registrations from this address; try again in a minute");
    }
    hourly.take(key);
    let body: unknown;
    try {
      body = await readJsonBody(req, MAX_REGISTRATION_BYTES);
    } catch (err) {
      throw new InvalidRequestError(err instanceof Error ? err.message : "the body must be JSON");
    }
    const info = await registerClient(await getOAuthStore(await deps.getStore()), body);
    return Response.json(info, { status: 201, headers: NO_STORE });
  } catch (err) {
    return oauthErrorResponse(err);
  }
}
