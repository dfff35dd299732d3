import { connection } from "next/server";
import { Chat } from "@/components/chat/Chat";
import { getConfig } from "@/lib/config";
import { shareInfo } from "@/lib/server/share-info";

export default async function Home() {
  // Rendered per request: whether a model key is configured is read at run time, not at build time.
  await connection();
  const { apiKey, model } = getConfig().chat;
  return <Chat offline={!apiKey} model={apiKey ? model : undefined} share={shareInfo()} maxUploadBytes={getConfig().maxUploadBytes} />;
}
