"use client";

import Link from "next/link";
import { ErrorLine, navLinkClass } from "@/components/ui";
import { AccountMenu } from "./AccountMenu";

/** The frame of the admin pages (People, Audit log): back link, title, account menu, intro and error line. */
export function AdminPage({
  title,
  intro,
  back,
  error,
  wide = false,
  children,
}: {
  title: string;
  intro: string;
  back: string;
  error: string | null;
  wide?: boolean;
  children: React.ReactNode;
}) {
  return (
    <main className={`mx-auto ${wide ? "max-w-6xl" : "max-w-4xl"} p-4 sm:p-8`}>
      <header className="mb-2 flex flex-wrap items-center gap-3">
        <Link href="/" className={navLinkClass}>
          ← {back}
        </Link>
        <h1 className="w-full text-2xl font-semibold sm:order-first sm:w-auto sm:flex-1">{title}</h1>
        <AccountMenu />
      </header>
      <p className="mb-6 text-sm text-zinc-600 dark:text-zinc-400">{intro}</p>
      {error && <ErrorLine className="mb-4">{error}</ErrorLine>}
      {children}
    </main>
  );
}
