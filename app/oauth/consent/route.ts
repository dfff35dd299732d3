import { decideConsent } from "@/lib/auth/oauth/authorize";
import { getReadyStore } from "@/lib/server/startup";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The consent form's POST (app/oauth/authorize/page.tsx): allow or deny. */
export function POST(req: Request): Promise<Response> {
  return decideConsent(req, { getStore: () => getReadyStore() });
}
