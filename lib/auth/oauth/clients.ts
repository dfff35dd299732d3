/**
 * Who the clients are: a client_id that is an https URL is resolved by its metadata document
 * (client-metadata.ts); any other was issued here by dynamic client registration (RFC 7591), stored in the
 * clients side table (a client secret only for client_secret_post, and only its hash).
 */
import { randomBytes } from "node:crypto";
import { InvalidClientError, InvalidClientMetadataError, InvalidRequestError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import {
  type OAuthClientInformationFull,
  OAuthClientInformationFullSchema,
  type OAuthClientMetadata,
  OAuthClientMetadataSchema,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { safeEqual } from "@/lib/auth/internal";
import { hashTokenSecret } from "@/lib/auth/tokens";
import { ClientMetadataError, fetchClientMetadata, isClientIdUrl } from "./client-metadata";
import type { OAuthStore } from "./store";

export interface ResolvedClient {
  clientId: string;
  metadata: OAuthClientMetadata;
  /** Only for a registered confidential client (client_secret_post). */
  secretHash: string | null;
}

const MAX_CLIENT_ID_CHARS = 2048;

/** The client behind a client_id, or an InvalidClientError. */
export async function resolveClient(store: OAuthStore, clientId: string | null | undefined): Promise<ResolvedClient> {
  if (!clientId) throw new InvalidRequestError("client_id is required");
  if (clientId.length > MAX_CLIENT_ID_CHARS) throw new InvalidClientError("client_id is too long");
  if (/^https?:\/\//i.test(clientId)) {
    if (!isClientIdUrl(clientId)) throw new InvalidClientError("a client_id URL must be https");
    try {
      return { clientId, metadata: await fetchClientMetadata(clientId), secretHash: null };
    } catch (err) {
      throw new InvalidClientError(`client metadata document: ${err instanceof ClientMetadataError ? err.message : "could not be read"}`);
    }
  }
  const stored = await store.getClient(clientId);
  if (!stored) throw new InvalidClientError("unknown client_id (register first, or use a client metadata document URL)");
  return { clientId, metadata: OAuthClientMetadataSchema.parse(JSON.parse(stored.metadata)), secretHash: stored.secretHash };
}

/** Client authentication at the token and revocation endpoints: none for public clients, client_secret_post otherwise. */
export function authenticateClient(client: ResolvedClient, presentedSecret: string | null): void {
  if (client.secretHash === null) return;
  if (!presentedSecret || !safeEqual(hashTokenSecret(presentedSecret), client.secretHash)) {
    throw new InvalidClientError("client authentication failed");
  }
}

/** A redirect URI a client may register: https, or http on a loopback host (native apps, RFC 8252). */
function acceptableRedirect(uri: string): boolean {
  try {
    const u = new URL(uri);
    if (u.hash) return false;
    if (u.protocol === "https:") return true;
    return u.protocol === "http:" && ["localhost", "127.0.0.1", "[::1]"].includes(u.hostname);
  } catch {
    return false;
  }
}

/** POST /oauth/register: validates the metadata with the SDK's schema, stores it, answers the client information. */
export async function registerClient(store: OAuthStore, body: unknown, now = new Date()): Promise<OAuthClientInformationFull> {
  const parsed = OAuthClientMetadataSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InvalidClientMetadataError(`${issue?.path.join(".") || "metadata"}: ${issue?.message}`);
  }
  const metadata = parsed.data;
  if (metadata.redirect_uris.length === 0 || !metadata.redirect_uris.every(acceptableRedirect)) {
    throw new InvalidClientMetadataError("redirect_uris must be https URLs (or http on localhost) without a fragment");
  }
  const method = metadata.token_endpoint_auth_method ?? "none";
  if (method !== "none" && method !== "client_secret_post") {
    throw new InvalidClientMetadataError('token_endpoint_auth_method must be "none" or "client_secret_post"');
  }
  if (metadata.grant_types?.some((g) => g !== "authorization_code" && g !== "refresh_token")) {
    throw new InvalidClientMetadataError("grant_types may only be authorization_code and refresh_token");
  }
  if (metadata.response_types?.some((r) => r !== "code")) throw new InvalidClientMetadataError('response_types may only be "code"');
  if (JSON.stringify(metadata).length > 16 * 1024) throw new InvalidClientMetadataError("the client metadata is too large");

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
  await store.addClient({
    clientId,
    metadata: JSON.stringify(stored),
    secretHash: secret ? hashTokenSecret(secret) : null,
    createdAt: now.toISOString(),
  });
  return OAuthClientInformationFullSchema.parse(info);
}
