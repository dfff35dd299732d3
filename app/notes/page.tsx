import type { Metadata } from "next";
import { connection } from "next/server";
import { NotesPage } from "@/components/notes/NotesPage";
import { getConfig } from "@/lib/config";

export const metadata: Metadata = { title: "Notes · Knowledge Chat" };

export default async function Notes({ searchParams }: { searchParams: Promise<{ kb?: string | string[] }> }) {
  // Rendered per request: whether a model is configured is read at run time.
  await connection();
  const { kb } = await searchParams;
  return <NotesPage initialKb={typeof kb === "string" && kb ? kb : undefined} offline={!getConfig().chat.apiKey} />;
}
