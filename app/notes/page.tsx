import type { Metadata } from "next";
import { connection } from "next/server";
import { NotesPage } from "@/components/notes/NotesPage";
import { getConfig } from "@/lib/config";
import { scopeQuerySchema } from "@/lib/tools/scope-query";

export const metadata: Metadata = { title: "Notes · Knowledge Chat" };

export default async function Notes({
  searchParams,
}: {
  searchParams: Promise<{ kb?: string | string[]; documents?: string | string[] }>;
}) {
  // Rendered per request: whether a model is configured is read at run time.
  await connection();
  const { kb, documents } = await searchParams;
  // The sources selected in the conversation the page was opened from (Save as note's link).
  const scope = scopeQuerySchema.safeParse({ documents: typeof documents === "string" ? documents : undefined });
  return (
    <NotesPage
      initialKb={typeof kb === "string" && kb ? kb : undefined}
      initialDocuments={scope.success ? scope.data.documents : []}
      offline={!getConfig().chat.apiKey}
    />
  );
}
