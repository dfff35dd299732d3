import type { Metadata } from "next";
import { DocumentView } from "@/components/documents/DocumentView";
import { safeReturnPath } from "@/lib/auth/return-path";

export const metadata: Metadata = { title: "Document · Knowledge Chat" };

export default async function DocumentPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<{ chunk?: string | string[]; q?: string | string[]; from?: string | string[] }>;
}) {
  const { id } = await params;
  const { chunk, q, from } = await searchParams;
  return (
    <DocumentView
      id={id}
      chunkId={typeof chunk === "string" ? chunk : undefined}
      claim={typeof q === "string" ? q : undefined}
      from={safeReturnPath(typeof from === "string" ? from : undefined)}
    />
  );
}
