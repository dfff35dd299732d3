/** The discovery documents: protected resource metadata (RFC 9728) and authorization server metadata (RFC 8414). */
import type { OAuthMetadata, OAuthProtectedResourceMetadata } from "@modelcontextprotocol/sdk/shared/auth.js";
import { checkKbName } from "@/lib/kb/names";
import { ASSERTION_ALGORITHMS } from "./client-assertion";
import { issuer, oauthEndpoints, resourceUrl, SCOPES } from "./urls";

/** Public documents: any origin may read them (browser-based MCP clients discover too). */
const HEADERS = { "Cache-Control": "public, max-age=300", "Access-Control-Allow-Origin": "*" };

function protectedResourceMetadata(kb?: string): OAuthProtectedResourceMetadata {
  return {
    resource: resourceUrl(kb),
    authorization_servers: [issuer()],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ["header"],
    resource_name: kb === undefined ? "Knowledge base (all)" : `Knowledge base "${kb}"`,
  };
}

function authorizationServerMetadata(): OAuthMetadata & Record<string, unknown> {
  const e = oauthEndpoints();
  return {
    issuer: issuer(),
    authorization_endpoint: e.authorization,
    token_endpoint: e.token,
    registration_endpoint: e.registration,
    revocation_endpoint: e.revocation,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none", "client_secret_post", "private_key_jwt"],
    token_endpoint_auth_signing_alg_values_supported: ASSERTION_ALGORITHMS,
    revocation_endpoint_auth_methods_supported: ["none", "client_secret_post", "private_key_jwt"],
    revocation_endpoint_auth_signing_alg_values_supported: ASSERTION_ALGORITHMS,
    scopes_supported: [...SCOPES],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
  };
}

/** GET of a protected resource metadata document; `kb` is the raw path segment (404 for a malformed name). */
export function protectedResourceMetadataResponse(kb?: string): Response {
  if (kb !== undefined && !checkKbName(kb).ok) return Response.json({ error: "not_found" }, { status: 404 });
  return Response.json(protectedResourceMetadata(kb), { headers: HEADERS });
}

export function authorizationServerMetadataResponse(): Response {
  return Response.json(authorizationServerMetadata(), { headers: HEADERS });
}
