/**
 * Fixed-capacity token bucket per key (a token id, or the client address when no token is used).
 * In-memory: each replica limits on its own, which is enough to stop a runaway client.
 */
interface RateLimitDecision {
  allowed: boolean;
  /** Seconds until one more request would be allowed (0 when allowed). */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  take(key: string, now?: number): RateLimitDecision;
  /** True when a take() now would be allowed; takes nothing. */
  peek(key: string, now?: number): boolean;
}

export function createRateLimiter(opts: { capacity: number; refillPerSecond: number; maxKeys?: number }): RateLimiter {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const maxKeys = opts.maxKeys ?? 10_000;
  return {
    peek(key, now = Date.now()) {
      const b = buckets.get(key);
      return !b || Math.min(opts.capacity, b.tokens + ((now - b.at) / 1000) * opts.refillPerSecond) >= 1;
    },
    take(key, now = Date.now()) {
      const b = buckets.get(key) ?? { tokens: opts.capacity, at: now };
      b.tokens = Math.min(opts.capacity, b.tokens + ((now - b.at) / 1000) * opts.refillPerSecond);
      b.at = now;
      buckets.delete(key); // re-insert to keep Map order = least recently used first
      buckets.set(key, b);
      if (buckets.size > maxKeys) buckets.delete(buckets.keys().next().value as string);
      if (b.tokens >= 1) {
        b.tokens -= 1;
        return { allowed: true, retryAfterSeconds: 0 };
      }
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - b.tokens) / opts.refillPerSecond)) };
    },
  };
}
