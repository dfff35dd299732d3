import { OAuthError, ServerError } from "@modelcontextprotocol/sdk/server/auth/errors.js";

/** OAuth answers are never cached (RFC 6749 §5.1). */
export const NO_STORE = { "Cache-Control": "no-store", Pragma: "no-cache" };

/** An OAuth error as JSON (the SDK's error classes, toResponseObject()); anything else is logged and a server_error. */
export function oauthErrorResponse(err: unknown): Response {
  const e = err instanceof OAuthError ? err : new ServerError("internal error");
  if (!(err instanceof OAuthError)) console.error("[oauth]", err);
  const status =
    e.errorCode === "invalid_client" ? 401 : e.errorCode === "too_many_requests" ? 429 : e.errorCode === "server_error" ? 500 : 400;
  return Response.json(e.toResponseObject(), { status, headers: NO_STORE });
}

/** `uri` with these query parameters added (state, iss, code or error). */
export function withParams(uri: string, params: Record<string, string | undefined>): string {
  const url = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url.href;
}

export function redirect(location: string): Response {
  return new Response(null, { status: 303, headers: { Location: location, ...NO_STORE } });
}
