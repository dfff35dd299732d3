import { getOAuthStore } from "@/lib/auth/oauth/store";
import type { Registry } from "@/lib/kb";
import type { Store } from "@/lib/store";
import { deleteUser } from "./service";
import { getAccountStore } from "./store";

/**
 * Removes an account with everything that would act for it: its sessions, its access tokens and its OAuth
 * grants (so their access and refresh tokens stop working and list as revoked). Its conversations stay,
 * unreachable. Returns the removed address.
 */
export async function removeAccount(store: Store, registry: Registry, id: string): Promise<string> {
  const accounts = await getAccountStore(store);
  const email = (await accounts.users()).get(id)?.email ?? id;
  const ownedBy = async (kind: "token" | "oauth_grant") =>
    [...(await accounts.owners(kind))].filter(([, owner]) => owner === id).map(([subject]) => subject);
  const tokens = await ownedBy("token");
  const grants = await ownedBy("oauth_grant");
  await deleteUser(accounts, id);
  for (const t of tokens) await registry.revokeToken(t);
  const oauth = await getOAuthStore(store);
  for (const g of grants) await oauth.revokeGrant(g);
  return email;
}
