import { z } from "zod";
import { AppError } from "@/lib/types";
import { resolveAuthSettings, type AuthSettings } from "./config";
import { safeEqual } from "./internal";
import { isOriginAllowed } from "./origin";
import { bearerSecret } from "./tokens";

/** Only the origin check: browser requests from foreign origins are refused (CSRF, DNS rebinding). */
export function checkOrigin(req: Request, settings: AuthSettings = resolveAuthSettings()): AppError | null {
  if (!isOriginAllowed(req.headers.get("origin"), req.url, settings.allowedOrigins)) {
    return new AppError("forbidden", "Requests from this origin are not allowed.", 403);
  }
  return null;
}

/**
 * The origin check, then, when tokens are required: with ADMIN_TOKEN set, its bearer; without it, only an
 * app that listens on loopback (every request then comes from this machine). When tokens are not required
 * (the local single-user run) nothing else is asked.
 */
function checkAdmin(req: Request, settings: AuthSettings, withoutAdminToken: string): AppError | null {
  const denied = checkOrigin(req, settings);
  if (denied || !settings.requireToken) return denied;
  if (settings.adminToken) {
    const presented = bearerSecret(req.headers.get("authorization"));
    if (presented && safeEqual(presented, settings.adminToken)) return null;
    return new AppError(
      "unauthorized",
      "This needs the admin token (ADMIN_TOKEN) as a bearer token; in the browser, enter it on the Knowledge bases page.",
      401,
    );
  }
  if (settings.loopbackOnly) return null;
  return new AppError("forbidden", withoutAdminToken, 403);
}

/** Guard for the management API (/api/kbs writes, /api/tokens, document upload, delete, re-index). */
export function checkManagementAccess(req: Request, settings: AuthSettings = resolveAuthSettings()): AppError | null {
  return checkAdmin(
    req,
    settings,
    "Managing knowledge bases and tokens on a shared server needs ADMIN_TOKEN to be set; send it as a bearer token.",
  );
}

/**
 * Guard for the web app's own read routes (documents, knowledge bases, chat, example questions): the same
 * rule as management, since they show every document. MCP clients use access tokens instead (/api/mcp).
 */
export function checkReadAccess(req: Request, settings: AuthSettings = resolveAuthSettings()): AppError | null {
  return checkAdmin(req, settings, "Reading this server's documents from the web app needs ADMIN_TOKEN to be set; send it as a bearer token.");
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
