import { getOAuthStore } from "@/lib/auth/oauth/store";
import type { Registry } from "@/lib/kb";
import type { Store } from "@/lib/store";
import { deleteUser } from "./service";
import { type AccountStore, getAccountStore } from "./store";

/** The ids of the tokens and OAuth grants a user made. */
async function ownedBy(accounts: AccountStore, id: string) {
  const of = async (kind: "token" | "oauth_grant") =>
    [...(await accounts.owners(kind))].filter(([, owner]) => owner === id).map(([subject]) => subject);
  return { tokens: await of("token"), grants: await of("oauth_grant") };
}

async function revokeOwned(store: Store, registry: Registry, owned: Awaited<ReturnType<typeof ownedBy>>): Promise<void> {
  for (const t of owned.tokens) await registry.revokeToken(t);
  const oauth = await getOAuthStore(store);
  for (const g of owned.grants) await oauth.revokeGrant(g);
}

/**
 * Ends everything that acts for an account while keeping it: its sessions, its access tokens and its OAuth
 * grants (their access and refresh tokens stop working and list as revoked).
 */
export async function endAccountAccess(store: Store, registry: Registry, id: string): Promise<void> {
  const accounts = await getAccountStore(store);
  await accounts.deleteSessions(id);
  await revokeOwned(store, registry, await ownedBy(accounts, id));
}

/**
 * Removes an account with everything that would act for it: its sessions, its access tokens and its OAuth
 * grants (so their access and refresh tokens stop working and list as revoked). Its conversations stay,
 * unreachable. Returns the removed address.
 */
export async function removeAccount(store: Store, registry: Registry, id: string): Promise<string> {
  const accounts = await getAccountStore(store);
  const email = (await accounts.users()).get(id)?.email ?? id;
  const owned = await ownedBy(accounts, id);
  await deleteUser(accounts, id);
  await revokeOwned(store, registry, owned);
  return email;
}
