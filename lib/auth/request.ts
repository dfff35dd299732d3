import { processGlobal } from "@/lib/process-global";
import type { AuthSettings } from "./config";
import type { Caller } from "./peer";
import { createRateLimiter, type RateLimiter } from "./rate-limit";

/** The process-wide limiter named `name` for `perMinute` requests a minute (burst = the same number). */
export function getRateLimiter(perMinute: number, name = "mcp"): RateLimiter {
  const map = processGlobal("rate-limiters", () => new Map<string, RateLimiter>());
  const key = `${name}:${perMinute}`;
  let rl = map.get(key);
  if (!rl) {
    rl = createRateLimiter({ capacity: perMinute, refillPerSecond: perMinute / 60 });
    map.set(key, rl);
  }
  return rl;
}

/**
 * Failed authentications (a wrong admin secret or access token) per client address: `blocked` before a
 * presented secret is even checked, `record` after a failure. Shared by the web API and MCP.
 */
export function authFailures(settings: Pick<AuthSettings, "authFailuresPerMinute">, caller: Caller) {
  const limiter = getRateLimiter(settings.authFailuresPerMinute ?? 10, "auth-failures");
  const key = `ip:${caller.address}`;
  return {
    blocked: () => !limiter.peek(key),
    record: () => {
      limiter.take(key);
    },
  };
}
