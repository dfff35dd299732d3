import type { Metadata } from "next";
import { connection } from "next/server";
import { KbManager } from "@/components/kbs/KbManager";
import { shareInfo } from "@/lib/server/share-info";

export const metadata: Metadata = { title: "Knowledge bases · Knowledge Chat" };

export default async function KnowledgeBasesPage() {
  // Per request: the addresses the app listens on are known at run time, not at build time.
  await connection();
  return <KbManager share={shareInfo()} />;
}
