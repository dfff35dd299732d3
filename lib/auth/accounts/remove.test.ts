/**
 * Removing an account on a real LanceDB store: its access tokens and OAuth grants are revoked with it, so they
 * list as revoked and its refresh token mints nothing more.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { getOAuthStore } from "@/lib/auth/oauth/store";
import { handleToken } from "@/lib/auth/oauth/token";
import { createOfflineEmbedder } from "@/lib/embed";
import { createAccessToken, getRegistry } from "@/lib/kb";
import { openStore, type Store } from "@/lib/store";
import { removeAccount } from "./remove";
import { createUser } from "./service";
import { getAccountStore } from "./store";

let dir: string;
let store: Store;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "remove-"));
  store = await openStore({ uri: dir, embedder: createOfflineEmbedder(64) });
});
afterAll(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const refresh = (token: string) =>
  handleToken(
    new Request("http://127.0.0.1:3000/oauth/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: token, client_id: "cli_test" }),
    }),
    { getStore: async () => store },
  );

it("revokes the account's tokens and OAuth grants: its refresh token mints no more access tokens", async () => {
  const accounts = await getAccountStore(store);
  const registry = await getRegistry(store);
  const oauth = await getOAuthStore(store);
  const user = await createUser(accounts, { email: "gone@team.test", name: "", password: "long enough pw", role: "reader", kbs: [] }, []);
  const { token } = await createAccessToken(store, registry, { name: "laptop", scope: "read", kb: null }, (id) =>
    accounts.setOwner("token", id, user.id),
  );
  await oauth.addClient(
    {
      clientId: "cli_test",
      metadata: JSON.stringify({ client_name: "Test", redirect_uris: ["http://127.0.0.1/cb"], token_endpoint_auth_method: "none" }),
      secretHash: null,
      createdAt: new Date().toISOString(),
    },
    2000,
  );
  const grant = {
    id: "oag_00000000000000aa",
    clientId: "cli_test",
    clientName: "Test",
    resource: "http://127.0.0.1:3000/api/mcp",
    kbs: ["default"],
    scope: "read" as const,
    createdAt: new Date().toISOString(),
    lastUsedAt: null,
    revoked: false,
  };
  await accounts.setOwner("oauth_grant", grant.id, user.id);
  await oauth.addGrant(grant);
  await oauth.addSecret(
    { kind: "refresh", grantId: grant.id, expiresAt: new Date(Date.now() + 3600_000).toISOString(), data: null },
    "kbor_one",
  );
  const first = await refresh("kbor_one");
  expect(first.status).toBe(200);
  const { refresh_token: next, access_token: access } = (await first.json()) as { refresh_token: string; access_token: string };
  expect(await oauth.authenticate(access)).toMatchObject({ id: grant.id });

  expect(await removeAccount(store, registry, user.id)).toBe("gone@team.test");
  expect((await registry.getToken(token.id))?.revoked).toBe(true);
  expect((await oauth.getGrant(grant.id))?.revoked).toBe(true);
  expect(await oauth.authenticate(access)).toBe("stale");
  const after = await refresh(next);
  expect(after.status).toBe(400);
  expect(await after.json()).toMatchObject({ error: "invalid_grant" });
});
