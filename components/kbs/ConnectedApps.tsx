"use client";

import { grantApi } from "./api";
import type { KbMessages } from "./messages";
import { RevocableList } from "./RevocableList";

const loadGrants = async () => (await grantApi.list()).grants.map((g) => ({ ...g, name: g.clientName }));

/** The OAuth grants ("Connected apps"): client, access, knowledge bases, endpoint, last use, with revoke. */
export function ConnectedApps({ t, version, onError }: { t: KbMessages; version: number; onError: (e: unknown) => void }) {
  return (
    <RevocableList
      t={t}
      version={version}
      onError={onError}
      kind="app"
      title={t.appsTitle}
      intro={t.appsIntro}
      empty={t.noApps}
      confirm={t.confirmRevokeApp}
      load={loadGrants}
      revoke={grantApi.revoke}
      details={(g) => (
        <>
          <span className="text-xs text-zinc-600 dark:text-zinc-400">{g.kbs.join(", ")}</span>
          <span className="break-all text-xs text-zinc-600 dark:text-zinc-400">{g.resource}</span>
        </>
      )}
    />
  );
}
