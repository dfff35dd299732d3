import type { Metadata } from "next";
import { SharedConversation } from "@/components/chat/SharedConversation";

export const metadata: Metadata = { title: "Shared conversation · Knowledge Chat", robots: { index: false } };

export default async function SharedPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  return <SharedConversation token={token} />;
}
