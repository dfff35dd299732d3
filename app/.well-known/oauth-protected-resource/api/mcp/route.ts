import { protectedResourceMetadataResponse } from "@/lib/auth/oauth/metadata";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** RFC 9728 protected resource metadata of /api/mcp. */
export function GET(): Response {
  return protectedResourceMetadataResponse();
}
