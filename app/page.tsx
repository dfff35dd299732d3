import { connection } from "next/server";
import { Chat } from "@/components/chat/Chat";
import { shareInfo } from "@/components/connect/share-info";
import { getConfig } from "@/lib/config";

export default async function Home() {
  // Rendered per request: whether a model key is configured is read at run time, not at build time.
  await connection();
  const { apiKey, model } = getConfig().chat;
  return <Chat offline={!apiKey} model={apiKey ? model : undefined} share={shareInfo()} maxUploadBytes={getConfig().maxUploadBytes} />;
}
