"use client";
import Link from "next/link";
import { Preferences } from "@/components/Preferences";

/** The header of a page beside the chat (FAQ, notes): its title, the language and theme preferences, the way back. */
export function PageHeader({ title, back }: { title: string; back: string }) {
  return (
    <header className="flex items-center gap-3">
      <h1 className="text-lg font-semibold">{title}</h1>
      <span className="ml-auto">
        <Preferences />
      </span>
      <Link href="/" className="rounded-lg px-2 py-1 text-sm text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800">
        {back}
      </Link>
    </header>
  );
}

/** The look of a tab under such a header: the selected one underlined. */
export const tabClass = (active: boolean) =>
  `rounded-t-lg border-b-2 px-3 py-1.5 text-sm ${active ? "border-blue-600 font-semibold" : "border-transparent text-zinc-600 hover:text-zinc-900 dark:text-zinc-400"}`;
