/**
 * Test only: a real OpenID provider (node-oidc-provider, its development login and consent pages) on a
 * loopback port, and a browser-less walk through its pages. Its ID tokens carry exactly the claims given for
 * each login: leave out `email_verified` to get a provider that never asserts it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

export interface TestProvider {
  issuer: string;
  /** The claims the next sign-in or refresh of `login` gets (sub defaults to the login). */
  claims: Map<string, Record<string, unknown>>;
  /** Logins the provider no longer knows: their refresh tokens are refused (`invalid_grant`). */
  gone: Set<string>;
  close(): Promise<void>;
}

export async function startTestProvider(client: { clientId: string; clientSecret: string; redirectUri: string }): Promise<TestProvider> {
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end();
  const server = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const claims = new Map<string, Record<string, unknown>>();
  const gone = new Set<string>();
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: client.clientId,
        client_secret: client.clientSecret,
        redirect_uris: [client.redirectUri],
        grant_types: ["authorization_code", "refresh_token"],
      },
    ],
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "groups"] },
    // Every claim in the ID token, as a provider without a userinfo round trip would send them.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    // A refresh token at every sign-in, as Keycloak gives one without offline_access.
    issueRefreshToken: async () => true,
    async findAccount(_ctx: unknown, id: string) {
      if (gone.has(id)) return undefined;
      return { accountId: id, claims: async () => ({ sub: id, ...(claims.get(id) ?? {}) }) };
    },
  });
  handler = provider.callback();
  return {
    issuer,
    claims,
    gone,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * What a browser does between the app's redirect to the provider and the provider's redirect back: signs in as
 * `login` and consents. Returns the URL the provider sends the browser back to (the app's callback).
 */
export async function walkProvider(authorizationUrl: string, login: string, callbackPrefix: string): Promise<URL> {
  const jar = new Map<string, string>();
  const send = async (url: string, init: RequestInit = {}) => {
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
    const res = await fetch(url, { ...init, redirect: "manual", headers: { ...(init.headers ?? {}), cookie } });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const eq = pair.indexOf("=");
      jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1));
    }
    return res;
  };
  let url = authorizationUrl;
  for (let step = 0; step < 20; step++) {
    if (url.startsWith(callbackPrefix)) return new URL(url);
    const res = await send(url);
    if (res.status >= 300 && res.status < 400) {
      url = new URL(res.headers.get("location")!, url).href;
      continue;
    }
    const html = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    const prompt = /name="prompt" value="([^"]+)"/.exec(html)?.[1];
    if (!action || !prompt) throw new Error(`unexpected provider page (${res.status}): ${html.slice(0, 300)}`);
    const body = new URLSearchParams(prompt === "login" ? { prompt, login, password: "any" } : { prompt });
    const posted = await send(new URL(action, url).href, {
      method: "POST",
      body,
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    if (posted.status < 300 || posted.status >= 400) throw new Error(`the provider answered ${posted.status} to ${prompt}`);
    url = new URL(posted.headers.get("location")!, url).href;
  }
  throw new Error("the provider never sent the browser back");
}
