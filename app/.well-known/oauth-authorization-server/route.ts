import { authorizationServerMetadataResponse } from "@/lib/auth/oauth/metadata";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** RFC 8414 authorization server metadata; the issuer is PUBLIC_URL. */
export function GET(): Response {
  return authorizationServerMetadataResponse();
}
