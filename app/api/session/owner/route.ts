import { getAccountStore } from "@/lib/auth/accounts/store";
import { resolveAuthSettings } from "@/lib/auth/config";
import { signInWithOwnerLink } from "@/lib/auth/owner-link";
import { route } from "@/lib/server/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** GET /api/session/owner?token=… — the owner sign-in link server.mjs prints at start (lib/auth/owner-link.ts). */
export const GET = route({ access: "open" }, async ({ req, store }) =>
  signInWithOwnerLink(req, async () => getAccountStore(await store()), resolveAuthSettings()),
);
