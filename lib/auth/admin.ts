import { AppError } from "@/lib/types";
import { isAdminSecret } from "./admin-secret";
import { type AuthSettings, resolveAuthSettings } from "./config";
import { isOriginAllowed } from "./origin";
import { callerOf } from "./peer";
import { authFailures } from "./request";
import { bearerSecret } from "./tokens";

/** Only the origin check: browser requests from foreign origins are refused (CSRF, DNS rebinding). */
export function checkOrigin(req: Request, settings: AuthSettings = resolveAuthSettings()): AppError | null {
  if (!isOriginAllowed(req.headers.get("origin"), req.headers.get("host"), settings.allowedOrigins)) {
    return new AppError("forbidden", "Requests from this origin are not allowed.", 403);
  }
  return null;
}

/**
 * The web app's API (management, documents, knowledge bases, chat): the origin check, then requests from
 * this machine pass (unless REQUIRE_TOKEN=1); any other request needs the admin secret as a bearer token.
 * Wrong secrets count against the client's failed-authentication budget (429 once spent).
 */
export function checkAppAccess(req: Request, settings: AuthSettings = resolveAuthSettings()): AppError | null {
  const denied = checkOrigin(req, settings);
  if (denied) return denied;
  const caller = callerOf(req, settings.trustedProxies);
  if (caller.local && !settings.requireToken) return null;
  const failures = authFailures(settings, caller);
  if (failures.blocked()) {
    return new AppError("rate_limited", "Too many failed authentications from this address; try again in a minute.", 429);
  }
  const presented = bearerSecret(req.headers.get("authorization"));
  if (presented && isAdminSecret(presented, settings.adminToken)) return null;
  if (presented || req.headers.get("authorization")) failures.record();
  return new AppError(
    "unauthorized",
    caller.local
      ? "This server requires the admin token (REQUIRE_TOKEN=1): send ADMIN_TOKEN as a bearer token; in the browser, enter it on the Knowledge bases page."
      : "Requests from other machines need the admin token (ADMIN_TOKEN, or the secret printed at the server's first start) as a bearer token; in the browser, enter it on the Knowledge bases page.",
    401,
  );
}
