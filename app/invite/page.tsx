import type { Metadata } from "next";
import { JoinForm } from "@/components/account/JoinForm";

export const metadata: Metadata = { title: "Join · Knowledge Chat", referrer: "no-referrer" };

export default function InvitePage() {
  return <JoinForm />;
}
