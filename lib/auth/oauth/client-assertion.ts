/**
 * private_key_jwt client authentication (RFC 7523 §2.2, OpenID Connect Core §9): the client signs a short-lived
 * JWT about itself with a key published in its JWK Set (`jwks_uri`, fetched under the client metadata
 * document's rules, or `jwks` inline). Checked with `jose`: an asymmetric algorithm, iss = sub = client_id,
 * an audience naming this server's token endpoint or issuer, an expiry at most ten minutes ahead, and a jti
 * used once.
 */
import { InvalidClientError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type { OAuthClientMetadata } from "@modelcontextprotocol/sdk/shared/auth.js";
import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from "jose";
import { processGlobal } from "@/lib/process-global";
import { ClientMetadataError, fetchPublicDocument, isClientIdUrl } from "./client-metadata";
import { issuer, oauthEndpoints } from "./urls";

const ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
export const ASSERTION_ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"];
const MAX_JWKS_BYTES = 16 * 1024;
const JWKS_CACHE_MS = 5 * 60_000;
const MAX_LIFETIME_S = 600;

/** Whether a client's metadata can support private_key_jwt: a JWK Set inline, or at a URL the fetcher may reach. */
export function hasKeySource(metadata: OAuthClientMetadata): boolean {
  if (metadata.jwks_uri) return isClientIdUrl(metadata.jwks_uri);
  return Array.isArray((metadata.jwks as JSONWebKeySet | undefined)?.keys);
}

const jwksCache = () => processGlobal("oauth-jwks", () => new Map<string, { at: number; value: Promise<JSONWebKeySet> }>());

async function loadJwks(uri: string): Promise<JSONWebKeySet> {
  const body = await fetchPublicDocument(new URL(uri), "JWK Set", MAX_JWKS_BYTES);
  let json: unknown;
  try {
    json = JSON.parse(body.toString("utf8"));
  } catch {
    throw new ClientMetadataError("the JWK Set is not JSON");
  }
  if (!Array.isArray((json as JSONWebKeySet).keys)) throw new ClientMetadataError("the JWK Set has no keys");
  return json as JSONWebKeySet;
}

function keySet(metadata: OAuthClientMetadata, now: number): Promise<JSONWebKeySet> {
  const uri = metadata.jwks_uri;
  if (!uri) return Promise.resolve(metadata.jwks as JSONWebKeySet);
  const cache = jwksCache();
  const hit = cache.get(uri);
  if (hit && now - hit.at < JWKS_CACHE_MS) return hit.value;
  const value = loadJwks(uri);
  if (cache.size >= 500) cache.clear();
  cache.set(uri, { at: now, value });
  value.catch(() => cache.delete(uri));
  return value;
}

/** jti values seen, until their assertion expires. */
const seen = () => processGlobal("oauth-assertion-jti", () => new Map<string, number>());

/** Checks a client_assertion of `clientId`; throws InvalidClientError saying why not. */
export async function verifyClientAssertion(
  clientId: string,
  metadata: OAuthClientMetadata,
  form: URLSearchParams,
  now = Date.now(),
): Promise<void> {
  if (form.get("client_assertion_type") !== ASSERTION_TYPE) {
    throw new InvalidClientError(`this client authenticates with private_key_jwt: send client_assertion_type ${ASSERTION_TYPE}`);
  }
  const assertion = form.get("client_assertion");
  if (!assertion) throw new InvalidClientError("client_assertion is required");
  let keys: JSONWebKeySet;
  try {
    keys = await keySet(metadata, now);
  } catch (err) {
    throw new InvalidClientError(`the client's JWK Set: ${err instanceof ClientMetadataError ? err.message : "could not be read"}`);
  }
  let payload: Awaited<ReturnType<typeof jwtVerify>>["payload"];
  try {
    ({ payload } = await jwtVerify(assertion, createLocalJWKSet(keys), {
      algorithms: ASSERTION_ALGORITHMS,
      issuer: clientId,
      subject: clientId,
      audience: [oauthEndpoints().token, issuer()],
      requiredClaims: ["exp", "jti"],
      currentDate: new Date(now),
    }));
  } catch {
    throw new InvalidClientError("client authentication failed: the client_assertion is not valid for this client");
  }
  const exp = (payload.exp ?? 0) * 1000;
  if (exp - now > MAX_LIFETIME_S * 1000) throw new InvalidClientError("client_assertion must expire within 10 minutes");
  const jtis = seen();
  for (const [k, at] of jtis) if (at <= now) jtis.delete(k);
  const key = `${clientId} ${payload.jti}`;
  if (jtis.has(key)) throw new InvalidClientError("client_assertion was already used");
  jtis.set(key, exp);
}
