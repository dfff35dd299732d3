import { createRateLimiter, type RateLimiter } from "./rate-limit";

/** The client address for rate limiting without a token (best effort: proxies set x-forwarded-for). */
export function clientAddress(req: Request): string {
  const xff = req.headers.get("x-forwarded-for");
  const first = xff?.split(",")[0]?.trim();
  return first || req.headers.get("x-real-ip")?.trim() || "unknown";
}

const KEY = Symbol.for("kb-mcp-chat.rate-limiters");
type G = typeof globalThis & { [KEY]?: Map<number, RateLimiter> };

/** The process-wide limiter for `perMinute` requests a minute (burst = the same number). */
export function getRateLimiter(perMinute: number): RateLimiter {
  const g = globalThis as G;
  const map = (g[KEY] ??= new Map());
  let rl = map.get(perMinute);
  if (!rl) {
    rl = createRateLimiter({ capacity: perMinute, refillPerSecond: perMinute / 60 });
    map.set(perMinute, rl);
  }
  return rl;
}
