/**
 * The models a user may pick per conversation: CHAT_MODELS when set, else what the endpoint's /v1/models
 * lists (cached a few minutes), always with CHAT_MODEL, the default, first. Offline there is none to pick.
 */
import { z } from "zod";
import type { AppConfig } from "@/lib/config";
import { AppError } from "@/lib/types";

const LIST_TTL_MS = 5 * 60_000;
const LIST_TIMEOUT_MS = 5_000;
const MAX_MODELS = 50;

const modelList = z.object({ data: z.array(z.object({ id: z.string().min(1).max(200) })) });

let cached: { key: string; at: number; models: Promise<string[]> } | null = null;

async function listedByEndpoint(config: AppConfig["chat"]): Promise<string[]> {
  const base = (config.baseURL ?? "https://api.openai.com/v1").replace(/\/+$/, "");
  try {
    const res = await fetch(`${base}/models`, {
      headers: { Authorization: `Bearer ${config.apiKey}` },
      signal: AbortSignal.timeout(LIST_TIMEOUT_MS),
    });
    if (!res.ok) return [];
    const parsed = modelList.safeParse(await res.json());
    return parsed.success ? parsed.data.data.map((m) => m.id) : [];
  } catch (err) {
    console.error("[chat] cannot list the endpoint's models:", err instanceof Error ? err.message : err);
    return [];
  }
}

export interface ModelChoice {
  /** CHAT_MODEL. */
  default: string;
  /** Every model that may be picked, the default first; one entry when there is no choice. */
  models: string[];
}

/** The model choice; none offline. */
export async function availableModels(config: AppConfig["chat"]): Promise<ModelChoice | null> {
  if (!config.apiKey) return null;
  let others: string[];
  if (config.models?.length) {
    others = config.models;
  } else {
    const key = `${config.baseURL}|${config.apiKey}`;
    if (!cached || cached.key !== key || Date.now() - cached.at > LIST_TTL_MS)
      cached = { key, at: Date.now(), models: listedByEndpoint(config) };
    others = await cached.models;
  }
  return { default: config.model, models: [...new Set([config.model, ...others])].slice(0, MAX_MODELS) };
}

/** The model a chat request asked for, checked against the choice: bad input is refused, never sent to the endpoint. */
export async function pickModel(config: AppConfig["chat"], requested: string | undefined): Promise<string | undefined> {
  if (!requested || requested === config.model) return undefined;
  const choice = await availableModels(config);
  if (!choice?.models.includes(requested)) throw new AppError("bad_request", `The model "${requested}" is not one this app may use.`);
  return requested;
}
