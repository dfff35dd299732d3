import { availableModels } from "@/lib/agent/models";
import { getConfig } from "@/lib/config";
import { route } from "@/lib/server/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The models the chat's model picker offers (CHAT_MODELS or the endpoint's /v1/models); none offline. */
export const GET = route({}, async () => {
  const choice = await availableModels(getConfig().chat);
  return choice ?? { default: null, models: [] };
});
