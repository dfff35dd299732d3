import { AppError } from "@/lib/types";

/** The most a JSON body of the web API may hold (a conversation, whose messages carry every retrieved chunk, is the largest). */
export const MAX_JSON_BODY_BYTES = 4 * 1024 * 1024;

/**
 * A request body's bytes, counted while reading: null once it passes `max`. Reading stops there without
 * cancelling the body: a cancel would close the socket before the refusal is written; server.mjs drains what
 * is left after the answer.
 */
export async function readBodyBytes(req: Request, max: number): Promise<Buffer | null> {
  const length = Number(req.headers.get("content-length") ?? 0);
  if (length > max) return null;
  const reader = req.body?.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  while (reader) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      reader.releaseLock();
      return null;
    }
    parts.push(value);
  }
  return Buffer.concat(parts);
}

/** A request's media type ("application/json" for "application/json; charset=utf-8"), lower case; "" without one. */
export function mediaType(req: Request): string {
  return (req.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
}

/** A byte limit as people read it: "8 KB", "4 MB". */
function sizeText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / 1024 / 1024)} MB` : `${Math.round(bytes / 1024)} KB`;
}

/**
 * The JSON body of a web API request: `application/json` only (415 otherwise: a browser sends `text/plain`
 * cross-origin without a preflight), at most `max` bytes (413), and valid JSON (400).
 */
export async function readJsonBody(req: Request, max = MAX_JSON_BODY_BYTES): Promise<unknown> {
  if (mediaType(req) !== "application/json") {
    throw new AppError("unsupported_type", "Send the request body as JSON (Content-Type: application/json).");
  }
  const bytes = await readBodyBytes(req, max);
  if (!bytes) throw new AppError("too_large", `The request body is larger than ${sizeText(max)}.`);
  try {
    return JSON.parse(bytes.toString("utf8"));
  } catch {
    throw new AppError("bad_request", "The request body must be JSON.");
  }
}
