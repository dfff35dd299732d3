/**
 * The authorization endpoint (authorization code + PKCE S256 only) and the consent decision.
 *
 * GET /oauth/authorize (the consent page, app/oauth/authorize/page.tsx) calls beginAuthorization: a request
 * whose client or redirect URI cannot be trusted gets an error page and is never redirected; any other
 * problem goes back to the client's redirect URI with `error`, `state` and `iss` (RFC 9207) only when the
 * client has proven that URI (a code sent there was exchanged), else an error page too (RFC 9700 §4.11.2: no
 * open redirector through a freshly registered client). A valid request becomes a pending request (ten
 * minutes, in this process) with a CSRF token the consent form carries.
 *
 * POST /oauth/consent (decideConsent) grants nothing without the admin secret typed into that form, the
 * pending request's CSRF token and the app's origin rule (lib/auth/origin.ts). Allow creates the grant (the
 * endpoint, the knowledge bases and read or read-write chosen there) and a single-use code living 60 s.
 */
import { randomBytes } from "node:crypto";
import { audit, kbsOf } from "@/lib/audit/record";
import { sessionUser } from "@/lib/auth/accounts/sessions";
import { ssoAccessAllowed } from "@/lib/auth/accounts/sso-recheck";
import { getAccountStore } from "@/lib/auth/accounts/store";
import { type AuthSettings, resolveAuthSettings } from "@/lib/auth/config";
import { safeEqual } from "@/lib/auth/internal";
import { isOriginAllowed } from "@/lib/auth/origin";
import { type Caller, callerOf } from "@/lib/auth/peer";
import { addressKey } from "@/lib/auth/rate-limit";
import { adminSecretAttempt, getRateLimiter } from "@/lib/auth/request";
import { limitOf, mayRead } from "@/lib/auth/roles";
import { getRegistry, kbCatalog } from "@/lib/kb";
import { knownKbs } from "@/lib/kb/known";
import { processGlobal } from "@/lib/process-global";
import type { Store } from "@/lib/store";
import { resolveClient } from "./clients";
import { readForm } from "./form";
import { consentLogo } from "./logo";
import { matchRedirect } from "./redirects";
import { redirect, withParams } from "./responses";
import { getOAuthStore, newGrantId } from "./store";
import type { GrantScope } from "./types";
import { issuer, parseResource, resourceUrl, SCOPES, WRITE_SCOPE } from "./urls";

export interface OAuthDeps {
  getStore: () => Promise<Store>;
  /** Default: from the environment. */
  auth?: AuthSettings;
}

const PENDING_MS = 10 * 60_000;
/** Pending requests one address may hold: its own oldest make way, never another's. */
const PENDING_PER_ADDRESS = 20;
/** Pending requests in all: past this new ones are refused, none evicted. */
const PENDING_MAX = 10_000;
/**
 * Authorization requests a minute per address from someone not signed in (each one may fetch a metadata
 * document and holds a pending request): a quarter of MCP_RATE_LIMIT, 30 by default.
 */
const anonymousAuthorizePerMinute = (s: AuthSettings) => Math.max(1, Math.floor(s.rateLimitPerMinute / 4));
const CODE_TTL_MS = 60_000;

interface Pending {
  id: string;
  /** The address that started the request (whose share of the pending requests it uses). */
  address: string;
  csrf: string;
  expiresAt: number;
  clientId: string;
  clientName: string;
  logoUri: string | null;
  redirectUri: string;
  state: string | undefined;
  codeChallenge: string;
  /** The MCP endpoint (resource) the grant will be bound to; `kb` set for /api/mcp/<kb>. */
  resource: string;
  kb: string | undefined;
  wantsWrite: boolean;
}

/** What the consent page shows. */
export interface ConsentView {
  requestId: string;
  csrf: string;
  clientName: string;
  clientId: string;
  /** Only an inline data: image (./logo.ts). */
  logoUri: string | null;
  /** The whole redirect URI the answer goes to. */
  redirectUri: string;
  /** Set when the endpoint is /api/mcp/<kb>: the grant is for that one. */
  kb: string | undefined;
  kbs: { name: string; title: string }[];
  wantsWrite: boolean;
  /** The signed-in person who consents (within their grants); null: the admin secret is asked for. */
  signedInAs: string | null;
  /** Whether read-write may be chosen. */
  mayWrite: boolean;
}

export type BeginResult =
  | { kind: "consent"; view: ConsentView }
  | { kind: "redirect"; location: string }
  | { kind: "error"; message: string };

const pendingMap = () => processGlobal("oauth-pending", () => new Map<string, Pending>());

/** Keeps `p` unless the address already holds its share (its oldest go) or all are taken (false). */
function keepPending(p: Pending, now: number): boolean {
  const map = pendingMap();
  const mine: string[] = [];
  for (const [id, other] of map) {
    if (other.expiresAt <= now) map.delete(id);
    else if (other.address === p.address) mine.push(id);
  }
  while (mine.length >= PENDING_PER_ADDRESS) map.delete(mine.shift() as string);
  if (map.size >= PENDING_MAX) return false;
  map.set(p.id, p);
  return true;
}

/** The signed-in person of a consent request, if any. */
async function consenter(store: Store, cookieHeader: string | null) {
  const signedIn = await sessionUser(await getAccountStore(store), cookieHeader);
  if (!signedIn || typeof signedIn.user !== "object") return null;
  // A single-sign-on person the provider no longer vouches for consents to nothing.
  return (await ssoAccessAllowed(store, signedIn.user.id)) ? signedIn.user : null;
}

async function view(p: Pending, deps: OAuthDeps, cookieHeader: string | null): Promise<ConsentView> {
  const store = await deps.getStore();
  const catalog = await kbCatalog(store, await getRegistry(store));
  const user = await consenter(store, cookieHeader);
  const limit = user ? limitOf(user) : null;
  return {
    requestId: p.id,
    csrf: p.csrf,
    clientName: p.clientName,
    clientId: p.clientId,
    logoUri: p.logoUri,
    redirectUri: p.redirectUri,
    kb: p.kb,
    kbs: catalog
      .map((e) => ({ name: e.kb.name, title: e.kb.title }))
      .filter((k) => (p.kb === undefined || k.name === p.kb) && (!limit || mayRead(limit, k.name))),
    wantsWrite: p.wantsWrite,
    signedInAs: user?.email ?? null,
    mayWrite: !limit || limit.write,
  };
}

/** The consent page of a pending request (after a failed sign-in), or null once it expired. */
export async function pendingConsent(requestId: string, deps: OAuthDeps, cookieHeader: string | null = null): Promise<ConsentView | null> {
  const p = pendingMap().get(requestId);
  if (!p || p.expiresAt <= Date.now()) return null;
  return view(p, deps, cookieHeader);
}

/**
 * Validates an authorization request (the consent page's query). `caller`: who asks; someone not signed in
 * is limited per address.
 */
export async function beginAuthorization(
  query: URLSearchParams,
  deps: OAuthDeps,
  cookieHeader: string | null = null,
  caller: Caller = { address: "unknown", local: false },
): Promise<BeginResult> {
  for (const key of new Set(query.keys())) {
    if (query.getAll(key).length > 1) return { kind: "error", message: `The parameter ${key} is given more than once.` };
  }
  const signedIn = (await consenter(await deps.getStore(), cookieHeader)) !== null;
  const limiter = getRateLimiter(anonymousAuthorizePerMinute(deps.auth ?? resolveAuthSettings()), "oauth-authorize");
  if (!signedIn && !limiter.take(addressKey(caller.address)).allowed) {
    return { kind: "error", message: "Too many authorization requests from this address; try again in a minute." };
  }
  const store = await getOAuthStore(await deps.getStore());
  let client: Awaited<ReturnType<typeof resolveClient>>;
  try {
    client = await resolveClient(store, query.get("client_id"));
  } catch (err) {
    return { kind: "error", message: `This application cannot be identified: ${err instanceof Error ? err.message : String(err)}.` };
  }
  const redirectUri = matchRedirect(client.metadata.redirect_uris, query.get("redirect_uri"));
  if (!redirectUri) {
    return { kind: "error", message: "The redirect URI is not one this application registered." };
  }
  const state = query.get("state") ?? undefined;
  const proven = matchRedirect(await store.provenRedirects(client.clientId), redirectUri) !== null;
  const fail = (error: string, description: string): BeginResult =>
    proven
      ? { kind: "redirect", location: withParams(redirectUri, { error, error_description: description, state, iss: issuer() }) }
      : { kind: "error", message: `This authorization request cannot be completed (${error}): ${description}.` };
  if (query.get("response_type") !== "code") return fail("unsupported_response_type", 'response_type must be "code"');
  const challenge = query.get("code_challenge");
  if (!challenge || !/^[A-Za-z0-9_-]{43}$/.test(challenge)) return fail("invalid_request", "code_challenge (PKCE S256) is required");
  // Without a method RFC 7636 means "plain"; only S256 is taken, so an absent method is refused too.
  if (query.get("code_challenge_method") !== "S256") return fail("invalid_request", 'code_challenge_method must be "S256"');
  const resource = query.get("resource");
  const target = parseResource(resource);
  if (!target) return fail("invalid_target", `resource must be this server's MCP endpoint, ${resourceUrl()} or ${resourceUrl("<kb>")}`);
  const scopes = (query.get("scope") ?? "").split(" ").filter(Boolean);
  if (scopes.some((s) => !(SCOPES as readonly string[]).includes(s)))
    return fail("invalid_scope", `scope may only contain ${SCOPES.map((s) => `"${s}"`).join(" and ")}`);

  const pending: Pending = {
    id: randomBytes(16).toString("base64url"),
    address: addressKey(caller.address),
    csrf: randomBytes(24).toString("base64url"),
    expiresAt: Date.now() + PENDING_MS,
    clientId: client.clientId,
    clientName: client.metadata.client_name?.trim() || new URL(redirectUri).host,
    logoUri: consentLogo(client.metadata.logo_uri),
    redirectUri,
    state,
    codeChallenge: challenge,
    resource: resourceUrl(target.kb),
    kb: target.kb,
    wantsWrite: scopes.includes(WRITE_SCOPE),
  };
  const v = await view(pending, deps, cookieHeader);
  if (target.kb !== undefined && v.kbs.length === 0) {
    return fail("invalid_target", `there is no knowledge base named "${target.kb}" that you may use`);
  }
  if (!keepPending(pending, Date.now())) return fail("temporarily_unavailable", "too many pending authorization requests; try again later");
  return { kind: "consent", view: v };
}

function page(status: number, message: string): Response {
  const html = `<!doctype html><meta charset="utf-8"><title>Authorization</title><p>${message.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`)}</p>`;
  return new Response(html, { status, headers: { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" } });
}

/** POST /oauth/consent: the consent form's decision. */
export async function decideConsent(req: Request, deps: OAuthDeps): Promise<Response> {
  const settings = deps.auth ?? resolveAuthSettings();
  if (!isOriginAllowed(req.headers.get("origin"), req.headers.get("host"), settings.allowedOrigins)) {
    return page(403, "Requests from this origin are not allowed.");
  }
  let form: URLSearchParams;
  try {
    form = await readForm(req, ["kb"]);
  } catch (err) {
    return page(400, err instanceof Error ? err.message : "Bad request.");
  }
  const id = form.get("request_id") ?? "";
  const p = pendingMap().get(id);
  if (!p || p.expiresAt <= Date.now()) return page(400, "This authorization request has expired. Start again from the application.");
  if (!safeEqual(form.get("csrf") ?? "", p.csrf))
    return page(403, "The form is not valid for this authorization request (CSRF check failed).");

  const back = (reason: string) => redirect(`/oauth/authorize?request_id=${encodeURIComponent(id)}&failed=${reason}`);
  const iss = issuer();
  if (form.get("action") === "deny") {
    pendingMap().delete(id);
    return redirect(
      withParams(p.redirectUri, { error: "access_denied", error_description: "The request was denied.", state: p.state, iss }),
    );
  }
  if (form.get("action") !== "allow") return page(400, "Choose Allow or Deny.");

  const store = await deps.getStore();
  const caller = callerOf(req, settings);
  // A signed-in person consents within their own grants; otherwise the admin secret (the recovery path).
  const user = await consenter(store, req.headers.get("cookie"));
  const limit = user ? limitOf(user) : { kbs: null, write: true };
  if (!user) {
    const attempt = adminSecretAttempt(settings, caller, form.get("admin_secret") ?? "");
    if (attempt === "locked") return page(429, "Too many failed sign-ins from this address; try again in a minute.");
    if (attempt === "wrong") return back("secret");
  }
  const known = new Set(await knownKbs(store, await getRegistry(store)));
  const chosen = p.kb !== undefined ? [p.kb] : [...new Set(form.getAll("kb"))];
  if (chosen.length === 0 || !chosen.every((k) => known.has(k) && mayRead(limit, k))) return back("kbs");
  const access = form.get("access");
  if (access !== "read" && access !== "read-write") return back("access");
  if (access === "read-write" && !limit.write) return back("access");

  pendingMap().delete(id);
  const oauth = await getOAuthStore(store);
  const now = new Date();
  const grantId = newGrantId();
  // The owner first: the grant is never usable beyond its owner's grants.
  if (user) await (await getAccountStore(store)).setOwner("oauth_grant", grantId, user.id);
  await oauth.addGrant({
    id: grantId,
    clientId: p.clientId,
    clientName: p.clientName,
    resource: p.resource,
    kbs: chosen.sort(),
    scope: access as GrantScope,
    createdAt: now.toISOString(),
    lastUsedAt: null,
    revoked: false,
  });
  await audit(null, "oauth_grant", {
    actor: user?.email ?? "admin secret",
    actorId: user?.id,
    address: caller.address,
    target: grantId,
    kb: kbsOf(chosen),
    detail: `${p.clientName}: ${chosen.join(", ")} (${access})`,
  });
  const code = `kboc_${randomBytes(32).toString("base64url")}`;
  await oauth.addSecret(
    {
      kind: "code",
      grantId,
      expiresAt: new Date(now.getTime() + CODE_TTL_MS).toISOString(),
      data: JSON.stringify({ clientId: p.clientId, redirectUri: p.redirectUri, codeChallenge: p.codeChallenge }),
    },
    code,
  );
  return redirect(withParams(p.redirectUri, { code, state: p.state, iss }));
}
