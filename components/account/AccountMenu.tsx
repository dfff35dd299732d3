"use client";

import Link from "next/link";
import { apiFetch } from "@/components/api";
import { fill } from "@/components/fill";
import { useMessages } from "@/components/i18n";
import { Preferences } from "@/components/Preferences";
import { navLinkClass } from "@/components/ui";
import { T } from "./messages";
import { useViewer } from "./viewer";

/**
 * For page headers: the language and theme switches, who is signed in, sign out, and the admin pages for
 * admins (`compact`: only a signed-in person's sign-out).
 */
export function AccountMenu({ compact = false }: { compact?: boolean }) {
  const t = useMessages(T);
  const viewer = useViewer();
  // In the chat's compact header a phone has no room for the switches: its history drawer shows them.
  const preferences = compact ? (
    <span className="hidden sm:inline-flex">
      <Preferences />
    </span>
  ) : (
    <Preferences />
  );
  const signedIn = viewer?.kind === "user" || Boolean(viewer?.signedIn);
  if (!viewer || (compact && !signedIn)) return preferences;
  const admin = viewer.role === "admin" && !compact;
  const signOut = async () => {
    await apiFetch("/api/session", { method: "DELETE" }).catch(() => {});
    window.location.assign("/signin");
  };
  return (
    <nav className="flex flex-wrap items-center gap-3 text-sm" aria-label={t.people} data-testid="account-menu">
      {preferences}
      {admin && (
        <Link href="/people" className={navLinkClass} data-testid="people-link">
          {t.people}
        </Link>
      )}
      {admin && (
        <Link href="/audit" className={navLinkClass} data-testid="audit-link">
          {t.audit}
        </Link>
      )}
      {signedIn && (
        <>
          {viewer.kind === "user" && (
            <span className={`text-zinc-600 dark:text-zinc-400 ${compact ? "sr-only" : ""}`} data-testid="signed-in-as">
              {fill(t.signedInAs, { email: viewer.email ?? "" })}
            </span>
          )}
          {!compact && (
            <Link href="/account" className={navLinkClass} data-testid="account-link">
              {t.account}
            </Link>
          )}
          <button
            type="button"
            onClick={() => void signOut()}
            title={viewer.email ?? undefined}
            className={`${navLinkClass} shrink-0 whitespace-nowrap`}
            data-testid="sign-out"
          >
            {t.signOut}
          </button>
        </>
      )}
    </nav>
  );
}
