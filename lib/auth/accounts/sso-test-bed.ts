/**
 * Test only: what the single-sign-on tests stand on — a real OpenID provider on a loopback port, accounts on a real
 * store in a temp dir, and the OIDC settings in the environment for the file's tests (restored after them).
 */
import { afterAll, beforeAll } from "vitest";
import { getOAuthStore } from "@/lib/auth/oauth/store";
import { beginSso, finishSso, flowCookieValue } from "@/lib/auth/oidc";
import type { Store } from "@/lib/store";
import { openTempStore, type TempStore } from "@/lib/store/temp-store";
import { startTestProvider, type TestProvider, walkProvider } from "@/lib/test-helpers/oidc-provider";
import { type AccountStore, getAccountStore } from "./store";

export const APP = "http://app.test";
const CALLBACK = `${APP}/api/auth/oidc/callback`;

export interface SsoTestBed {
  /** The store's folder. */
  dir: string;
  store: Store;
  accounts: AccountStore;
  idp: TestProvider;
  /** `login` (whose claims become `claims`) walks the provider's pages: what the app's callback gets back. */
  providerSignIn(login: string, claims: Record<string, unknown>): ReturnType<typeof finishSso>;
  /** A read-write OAuth grant to the knowledge base default, owned by the account `userId`. */
  addOwnedGrant(grantId: string, userId: string): Promise<void>;
}

/** The bed, filled before the calling file's tests; `env` adds to the OIDC settings (roles, domains, re-check). */
export function ssoTestBed(prefix: string, env: Record<string, string>): SsoTestBed {
  const saved = { ...process.env };
  let temp: TempStore | undefined;
  const bed = {
    async providerSignIn(login, claims) {
      bed.idp.claims.set(login, claims);
      const { location, cookie } = await beginSso();
      return finishSso(await walkProvider(location, login, CALLBACK), flowCookieValue(cookie.split(";")[0]));
    },
    async addOwnedGrant(grantId, userId) {
      await bed.accounts.setOwner("oauth_grant", grantId, userId);
      await (await getOAuthStore(bed.store)).addGrant({
        id: grantId,
        clientId: "kbc_test",
        clientName: "Test",
        resource: `${APP}/api/mcp`,
        kbs: ["default"],
        scope: "read-write",
        createdAt: new Date().toISOString(),
        lastUsedAt: null,
        revoked: false,
      });
    },
  } as SsoTestBed;
  beforeAll(async () => {
    temp = await openTempStore(prefix, 64);
    bed.dir = temp.dir;
    bed.store = temp.store;
    bed.accounts = await getAccountStore(temp.store);
    bed.idp = await startTestProvider({ clientId: "kb-app", clientSecret: "kb-app-secret", redirectUri: CALLBACK });
    Object.assign(process.env, {
      PUBLIC_URL: APP,
      OIDC_ISSUER: bed.idp.issuer,
      OIDC_CLIENT_ID: "kb-app",
      OIDC_CLIENT_SECRET: "kb-app-secret",
      OIDC_ALLOW_INSECURE_ISSUER: "1",
      ...env,
    });
  });
  afterAll(async () => {
    process.env = saved;
    await bed.idp?.close();
    await temp?.close();
  });
  return bed;
}
