"use client";

import Link from "next/link";
import { useMessages } from "@/components/i18n";
import { T } from "./messages";

/** Link to the knowledge-base page, for other pages' headers. */
export function KbsLink({ className }: { className?: string }) {
  const t = useMessages(T);
  return (
    <Link href="/kbs" data-testid="kbs-link" className={className ?? "text-sm text-sky-700 hover:underline dark:text-sky-400"}>
      {t.manageKbs}
    </Link>
  );
}
