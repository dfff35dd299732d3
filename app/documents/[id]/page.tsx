import type { Metadata } from "next";
import { DocumentView } from "@/components/documents/DocumentView";

export const metadata: Metadata = { title: "Document · Knowledge Chat" };

export default async function DocumentPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<{ chunk?: string | string[] }>;
}) {
  const { id } = await params;
  const { chunk } = await searchParams;
  return <DocumentView id={id} chunkId={typeof chunk === "string" ? chunk : undefined} />;
}
