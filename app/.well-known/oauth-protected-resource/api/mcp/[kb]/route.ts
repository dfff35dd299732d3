import { protectedResourceMetadataResponse } from "@/lib/auth/oauth/metadata";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ kb: string }> };

/** RFC 9728 protected resource metadata of /api/mcp/<kb>. */
export async function GET(_req: Request, { params }: Ctx): Promise<Response> {
  return protectedResourceMetadataResponse((await params).kb);
}
