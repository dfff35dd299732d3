"use client";

import type { OAuthGrant } from "@/lib/auth/oauth/types";
import type { PublicToken } from "@/lib/credentials/token-types";
import { grantApi, tokenApi } from "./api";
import type { KbMessages } from "./messages";
import { type ListContext, RevocableList } from "./RevocableList";

type GrantRow = OAuthGrant & { name: string };

const loadTokens = async () => (await tokenApi.list()).tokens;
const loadGrants = async (): Promise<GrantRow[]> => (await grantApi.list()).grants.map((g) => ({ ...g, name: g.clientName }));

const tokenDetails = (t: KbMessages) => (tok: PublicToken) => (
  <span className="text-xs text-zinc-600 dark:text-zinc-400">{tok.kb ?? t.allKbs}</span>
);

const grantDetails = (g: GrantRow) => (
  <>
    <span className="text-xs text-zinc-600 dark:text-zinc-400">{g.kbs.join(", ")}</span>
    <span className="break-all text-xs text-zinc-600 dark:text-zinc-400">{g.resource}</span>
  </>
);

/** The access tokens and the OAuth grants ("Connected apps"), never their secrets, each with revoke. */
export function Credentials(props: ListContext) {
  return (
    <>
      <RevocableList<PublicToken> {...props} kind="token" load={loadTokens} revoke={tokenApi.revoke} details={tokenDetails(props.t)} />
      <RevocableList<GrantRow> {...props} kind="app" load={loadGrants} revoke={grantApi.revoke} details={grantDetails} />
    </>
  );
}
