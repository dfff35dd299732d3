"use client";

import { tokenApi } from "./api";
import type { KbMessages } from "./messages";
import { RevocableList } from "./RevocableList";

const loadTokens = async () => (await tokenApi.list()).tokens;

/** The access tokens (never their secrets), with revoke. */
export function TokenList({ t, version, onError }: { t: KbMessages; version: number; onError: (e: unknown) => void }) {
  return (
    <RevocableList
      t={t}
      version={version}
      onError={onError}
      kind="token"
      title={t.tokensTitle}
      intro={t.tokensIntro}
      empty={t.noTokens}
      confirm={t.confirmRevoke}
      load={loadTokens}
      revoke={tokenApi.revoke}
      details={(tok) => <span className="text-xs text-zinc-600 dark:text-zinc-400">{tok.kb ?? t.allKbs}</span>}
    />
  );
}
