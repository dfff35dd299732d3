"use client";

import { useState } from "react";
import { useMessages } from "@/components/i18n";
import { T as KB_T } from "@/components/kbs/messages";
import { ConnectDialog } from "./ConnectDialog";
import type { ShareInfo } from "./share-info";

/** "Connect" for page headers: opens the share panel for the whole library (or `kb`). */
export function ConnectButton({ kb, className, share }: { kb?: string | null; className?: string; share?: ShareInfo }) {
  const t = useMessages(KB_T);
  const [open, setOpen] = useState(false);
  return (
    <>
      <button
        type="button"
        data-testid="connect-open"
        onClick={() => setOpen(true)}
        className={className ?? "rounded-lg px-2 py-1 text-sm text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"}
      >
        {t.connect}
      </button>
      {open && <ConnectDialog initialKb={kb ?? null} share={share} onClose={() => setOpen(false)} />}
    </>
  );
}
