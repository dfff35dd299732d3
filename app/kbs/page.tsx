import type { Metadata } from "next";
import { KbManager } from "@/components/kbs/KbManager";

export const metadata: Metadata = { title: "Knowledge bases · Knowledge Chat" };

export default function KnowledgeBasesPage() {
  return <KbManager />;
}
