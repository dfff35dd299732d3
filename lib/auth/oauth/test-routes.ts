/** Test-only: the authorization server's routes, as a test's web server answers them. */
import { callerOf } from "../peer";
import { beginAuthorization, decideConsent, type OAuthDeps } from "./authorize";
import { authorizationServerMetadataResponse } from "./metadata";
import { handleRegister, handleToken } from "./token";

/** The response of the OAuth route at `url` (metadata, register, token, consent, authorize), or null for another path. */
export async function oauthRoute(request: Request, url: URL, deps: OAuthDeps): Promise<Response | null> {
  const p = url.pathname;
  if (p === "/.well-known/oauth-authorization-server") return authorizationServerMetadataResponse();
  if (p === "/oauth/register") return handleRegister(request, deps);
  if (p === "/oauth/token") return handleToken(request, deps);
  if (p === "/oauth/consent") return decideConsent(request, deps);
  if (p === "/oauth/authorize") {
    const result = await beginAuthorization(url.searchParams, deps, null, callerOf(request));
    return result.kind === "redirect" ? new Response(null, { status: 307, headers: { Location: result.location } }) : Response.json(result);
  }
  return null;
}
