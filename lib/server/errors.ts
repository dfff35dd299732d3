import { z } from "zod";
import { AppError } from "@/lib/types";

export const NO_STORE = { "Cache-Control": "no-store" } as const;

/** A zod error as one readable line: `path: message; …`. */
function zodMessage(err: z.ZodError): string {
  return err.issues.map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message)).join("; ");
}

/**
 * The one error shape of the HTTP API: `{ error: { code, message } }` (the chat's errors add `detail`) with the error's status
 * (AppError), 400 (zod) or 500 (anything else, logged; the client never sees internals).
 */
export function errorResponse(err: unknown): Response {
  if (err instanceof z.ZodError) {
    return Response.json({ error: { code: "bad_request", message: zodMessage(err) } }, { status: 400, headers: NO_STORE });
  }
  if (err instanceof AppError) {
    const headers: Record<string, string> = { ...NO_STORE };
    if (err.status === 401) headers["WWW-Authenticate"] = 'Bearer realm="admin"';
    if (err.status === 429) headers["Retry-After"] = "60";
    return Response.json({ error: { code: err.code, message: err.message } }, { status: err.status, headers });
  }
  console.error("[api] request failed:", err);
  return Response.json({ error: { code: "internal", message: "Something went wrong on the server." } }, { status: 500, headers: NO_STORE });
}
