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
  const { status, body } = errorBody(err);
  const headers: Record<string, string> = { ...NO_STORE };
  if (status === 401) headers["WWW-Authenticate"] = 'Bearer realm="admin"';
  if (status === 429) headers["Retry-After"] = "60";
  return Response.json({ error: body }, { status, headers });
}

/** The `{ code, message }` of an error and its status; also what a multi-file upload reports per file. */
export function errorBody(err: unknown): { status: number; body: { code: string; message: string; detail?: unknown } } {
  if (err instanceof z.ZodError) return { status: 400, body: { code: "bad_request", message: zodMessage(err) } };
  if (err instanceof AppError)
    return { status: err.status, body: { code: err.code, message: err.message, ...(err.detail ? { detail: err.detail } : {}) } };
  console.error("[api] request failed:", err);
  return { status: 500, body: { code: "internal", message: "Something went wrong on the server." } };
}
