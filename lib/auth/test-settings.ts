/** Test-only access settings. */
import { type AuthSettings, resolveAuthSettings } from "@/lib/auth/config";

/** Settings for tests: an open local run (LOCAL_OWNER=1), no proxies, a high rate limit. */
export function testAuthSettings(over: Partial<AuthSettings> = {}): AuthSettings {
  return { ...resolveAuthSettings({ rateLimitPerMinute: 100_000, allowedOrigins: [], localOwner: "1" }), ...over };
}
