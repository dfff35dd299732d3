import type { Metadata } from "next";
import { FaqManager } from "@/components/faq/FaqManager";

export const metadata: Metadata = { title: "FAQ · Knowledge Chat" };

export default async function FaqPage({ searchParams }: { searchParams: Promise<{ kb?: string | string[] }> }) {
  const { kb } = await searchParams;
  return <FaqManager initialKb={typeof kb === "string" && kb ? kb : undefined} />;
}
