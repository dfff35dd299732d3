import { z } from "zod";
import { AppError } from "@/lib/types";
import { resolveAuthSettings, type AuthSettings } from "./config";
import { safeEqual } from "./internal";
import { isOriginAllowed } from "./origin";
import { bearerSecret } from "./tokens";

/**
 * Guard for the management API (/api/kbs writes, /api/tokens). Browser requests from foreign origins are
 * refused (CSRF, DNS rebinding). When tokens are not required (the local single-user run) nothing else is
 * asked. When they are: with ADMIN_TOKEN set, its bearer is required; without it, only an app that listens
 * on loopback (every request then comes from this machine) may be managed.
 */
export function checkManagementAccess(req: Request, settings: AuthSettings = resolveAuthSettings()): AppError | null {
  if (!isOriginAllowed(req.headers.get("origin"), req.url, settings.allowedOrigins)) {
    return new AppError("forbidden", "Requests from this origin are not allowed.", 403);
  }
  if (!settings.requireToken) return null;
  if (settings.adminToken) {
    const presented = bearerSecret(req.headers.get("authorization"));
    if (presented && safeEqual(presented, settings.adminToken)) return null;
    return new AppError("unauthorized", "This needs the admin token (ADMIN_TOKEN) as a bearer token.", 401);
  }
  if (settings.loopbackOnly) return null;
  return new AppError(
    "forbidden",
    "Managing knowledge bases and tokens on a shared server needs ADMIN_TOKEN to be set; send it as a bearer token.",
    403,
  );
}

/** Only the origin check: for read-only management endpoints the UI's pickers use. */
export function checkOrigin(req: Request, settings: AuthSettings = resolveAuthSettings()): AppError | null {
  if (!isOriginAllowed(req.headers.get("origin"), req.url, settings.allowedOrigins)) {
    return new AppError("forbidden", "Requests from this origin are not allowed.", 403);
  }
  return null;
}

export const NO_STORE = { "Cache-Control": "no-store" } as const;

/** `{ error: { code, message } }` with the error's status (AppError), 400 (zod) or 500. */
export function errorResponse(err: unknown): Response {
  if (err instanceof z.ZodError) {
    const message = err.issues.map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message)).join("; ");
    return Response.json({ error: { code: "bad_request", message } }, { status: 400, headers: NO_STORE });
  }
  if (err instanceof AppError) {
    const headers: Record<string, string> = { ...NO_STORE };
    if (err.status === 401) headers["WWW-Authenticate"] = 'Bearer realm="admin"';
    return Response.json({ error: { code: err.code, message: err.message } }, { status: err.status, headers });
  }
  console.error("[api] request failed:", err);
  return Response.json({ error: { code: "internal", message: "Something went wrong on the server." } }, { status: 500, headers: NO_STORE });
}

/** The JSON body of a request, or a 400 AppError. */
export async function readJson(req: Request): Promise<unknown> {
  try {
    return await req.json();
  } catch {
    throw new AppError("bad_request", "The request body must be JSON.");
  }
}
