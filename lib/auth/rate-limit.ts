/**
 * Fixed-capacity token bucket per key (a token id, or the client address when no token is used).
 * In-memory: each replica limits on its own, which is enough to stop a runaway client.
 */
import { isIP } from "node:net";

/** The eight 16-bit groups of an IPv6 address (an embedded IPv4 tail becomes the last two). */
function ipv6Groups(address: string): number[] {
  const [head, tail = null] = address.split("::");
  const part = (s: string | null) =>
    (s ? s.split(":") : []).flatMap((g) => {
      if (!g.includes(".")) return [Number.parseInt(g, 16)];
      const [a, b, c, d] = g.split(".").map(Number);
      return [(a << 8) | b, (c << 8) | d];
    });
  const left = part(head);
  const right = part(tail);
  return tail === null ? left : [...left, ...Array(8 - left.length - right.length).fill(0), ...right];
}

/**
 * The key of a client address in every per-address budget: an IPv4 address, or the /64 of an IPv6 one (one
 * subscriber or host usually holds a whole /64, so its addresses count as one).
 */
export function addressKey(address: string): string {
  const a = address
    .trim()
    .replace(/^\[|\]$/g, "")
    .replace(/%.*$/, "");
  if (isIP(a) !== 6) return `ip:${a.toLowerCase()}`;
  const groups = ipv6Groups(a.toLowerCase());
  const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  if (mapped) return `ip:${groups[6] >> 8}.${groups[6] & 255}.${groups[7] >> 8}.${groups[7] & 255}`;
  return `ip6:${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(":")}::/64`;
}
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
