/**
 * Who the clients are: a client_id that is an https URL is resolved by its metadata document
 * (client-metadata.ts); any other was issued here by dynamic client registration (RFC 7591), stored in the
 * clients side table (a client secret only for client_secret_post, and only its hash). A client is public
 * ("none"), or authenticates with its secret (client_secret_post) or a signed JWT (private_key_jwt): a client
 * that declares a method is held to it, never taken for a public one.
 */
import { randomBytes } from "node:crypto";
import {
  InvalidClientError,
  InvalidClientMetadataError,
  InvalidRequestError,
  TooManyRequestsError,
} from "@modelcontextprotocol/sdk/server/auth/errors.js";
import {
  type OAuthClientInformationFull,
  OAuthClientInformationFullSchema,
  type OAuthClientMetadata,
  OAuthClientMetadataSchema,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { safeEqual } from "@/lib/auth/internal";
import { hashTokenSecret } from "@/lib/credentials/tokens";
import { hasKeySource, verifyClientAssertion } from "./client-assertion";
import { ClientMetadataError, fetchClientMetadata, isClientIdUrl } from "./client-metadata";
import { acceptableRedirect, REDIRECT_RULE } from "./redirects";
import type { OAuthStore } from "./store";

const AUTH_METHODS = ["none", "client_secret_post", "private_key_jwt"] as const;
type AuthMethod = (typeof AUTH_METHODS)[number];

export interface ResolvedClient {
  clientId: string;
  metadata: OAuthClientMetadata;
  authMethod: AuthMethod;
  /** Only for a registered confidential client (client_secret_post). */
  secretHash: string | null;
}

/** Registered clients kept at most; registration is refused while full (unused ones expire after an hour). */
const MAX_CLIENTS = 2000;
/** The most a registration's metadata may hold as JSON (a metadata document may hold 5 KB). */
const MAX_METADATA_CHARS = 4 * 1024;

const MAX_CLIENT_ID_CHARS = 2048;

/** The client behind a client_id, or an InvalidClientError. */
export async function resolveClient(store: OAuthStore, clientId: string | null | undefined): Promise<ResolvedClient> {
  if (!clientId) throw new InvalidRequestError("client_id is required");
  if (clientId.length > MAX_CLIENT_ID_CHARS) throw new InvalidClientError("client_id is too long");
  if (/^https?:\/\//i.test(clientId)) {
    if (!isClientIdUrl(clientId)) throw new InvalidClientError("a client_id URL must be https");
    let metadata: OAuthClientMetadata;
    try {
      metadata = await fetchClientMetadata(clientId);
    } catch (err) {
      throw new InvalidClientError(`client metadata document: ${err instanceof ClientMetadataError ? err.message : "could not be read"}`);
    }
    // A document cannot carry a shared secret: it is public ("none") or proves itself with its keys.
    const method = metadata.token_endpoint_auth_method ?? "none";
    if (method !== "none" && method !== "private_key_jwt") {
      throw new InvalidClientError(`client metadata document: token_endpoint_auth_method "${method}" is not supported here`);
    }
    if (method === "private_key_jwt" && !hasKeySource(metadata)) {
      throw new InvalidClientError("client metadata document: private_key_jwt needs an https jwks_uri or jwks");
    }
    return { clientId, metadata, authMethod: method, secretHash: null };
  }
  const stored = await store.getClient(clientId);
  if (!stored) throw new InvalidClientError("unknown client_id (register first, or use a client metadata document URL)");
  const metadata = OAuthClientMetadataSchema.parse(JSON.parse(stored.metadata));
  const method = (metadata.token_endpoint_auth_method ?? "none") as AuthMethod;
  if (!AUTH_METHODS.includes(method)) throw new InvalidClientError("this client's registration cannot be used");
  return { clientId, metadata, authMethod: method, secretHash: stored.secretHash };
}

/** Client authentication at the token and revocation endpoints, by the method the client declared. */
export async function authenticateClient(client: ResolvedClient, form: URLSearchParams): Promise<void> {
  if (client.authMethod === "private_key_jwt") return verifyClientAssertion(client.clientId, client.metadata, form);
  if (client.authMethod === "none") return;
  const presented = form.get("client_secret");
  if (!client.secretHash || !presented || !safeEqual(hashTokenSecret(presented), client.secretHash)) {
    throw new InvalidClientError("client authentication failed");
  }
}

/** POST /oauth/register: validates the metadata with the SDK's schema, stores it, answers the client information. */
export async function registerClient(
  store: OAuthStore,
  body: unknown,
  now = new Date(),
  maxClients = MAX_CLIENTS,
): Promise<OAuthClientInformationFull> {
  const parsed = OAuthClientMetadataSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InvalidClientMetadataError(`${issue?.path.join(".") || "metadata"}: ${issue?.message}`);
  }
  const metadata = parsed.data;
  if (metadata.redirect_uris.length === 0 || !metadata.redirect_uris.every(acceptableRedirect)) {
    throw new InvalidClientMetadataError(`redirect_uris: ${REDIRECT_RULE}`);
  }
  const method = (metadata.token_endpoint_auth_method ?? "none") as AuthMethod;
  if (!AUTH_METHODS.includes(method)) {
    throw new InvalidClientMetadataError(`token_endpoint_auth_method must be ${AUTH_METHODS.map((m) => `"${m}"`).join(", ")}`);
  }
  if (method === "private_key_jwt" && !hasKeySource(metadata)) {
    throw new InvalidClientMetadataError("private_key_jwt needs jwks_uri (https) or jwks");
  }
  if (metadata.grant_types?.some((g) => g !== "authorization_code" && g !== "refresh_token")) {
    throw new InvalidClientMetadataError("grant_types may only be authorization_code and refresh_token");
  }
  if (metadata.response_types?.some((r) => r !== "code")) throw new InvalidClientMetadataError('response_types may only be "code"');
  if (JSON.stringify(metadata).length > MAX_METADATA_CHARS) {
    throw new InvalidClientMetadataError(`the client metadata is larger than ${MAX_METADATA_CHARS / 1024} KB`);
  }
  const clientId = `kbc_${randomBytes(16).toString("hex")}`;
  const secret = method === "client_secret_post" ? `kbcs_${randomBytes(24).toString("base64url")}` : undefined;
  const info: OAuthClientInformationFull = {
    ...metadata,
    token_endpoint_auth_method: method,
    grant_types: metadata.grant_types ?? ["authorization_code", "refresh_token"],
    response_types: ["code"],
    client_id: clientId,
    client_id_issued_at: Math.floor(now.getTime() / 1000),
    ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
  };
  const stored = { ...info, client_secret: undefined };
  const added = await store.addClient(
    { clientId, metadata: JSON.stringify(stored), secretHash: secret ? hashTokenSecret(secret) : null, createdAt: now.toISOString() },
    maxClients,
    now,
  );
  if (!added) throw new TooManyRequestsError("this server holds as many registered clients as it keeps; try again later");
  return OAuthClientInformationFullSchema.parse(info);
}
