import { ApiError } from "@/components/api";
import type { KbMessages } from "./messages";

/** What to tell the user about a failed call: the server's message, or the network or fallback text. */
export function errorText(err: unknown, t: KbMessages, fallback: string): string {
  if (err instanceof ApiError) return err.status === 0 ? t.networkError : err.message || fallback;
  return fallback;
}
