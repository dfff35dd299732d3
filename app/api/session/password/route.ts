import { changePasswordSchema } from "@/lib/auth/accounts/schema";
import { changePassword } from "@/lib/auth/accounts/service";
import { getAccountStore } from "@/lib/auth/accounts/store";
import { route } from "@/lib/server/route";
import { AppError } from "@/lib/types";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** POST /api/session/password {current, password} — a signed-in person changes their own password; their other sessions end. */
export const POST = route({}, async ({ principal, body, store, audit }) => {
  if (principal.kind !== "user") throw new AppError("bad_request", "Only a signed-in account has a password to change.");
  const { current, password } = await body(changePasswordSchema);
  await changePassword(await getAccountStore(await store()), principal, current, password);
  await audit("user_update", { target: principal.user.email, detail: "own password; other sessions ended" });
  return { changed: true };
});
