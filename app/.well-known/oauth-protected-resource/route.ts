import { protectedResourceMetadataResponse } from "@/lib/auth/oauth/metadata";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** RFC 9728 metadata at the root: clients that do not insert the path get /api/mcp's. */
export function GET(): Response {
  return protectedResourceMetadataResponse();
}
