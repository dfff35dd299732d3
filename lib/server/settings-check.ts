/**
 * Settings checked once when the server starts (instrumentation.ts), so a wrong value stops it with a message
 * naming the variable instead of a healthy server that answers 500 to every request.
 */
import { parseProxyHeader, parseTrustedProxies } from "@/lib/auth/peer";
import { getConfig, sourceLimits } from "@/lib/config";
import { schedulerEnabled } from "@/lib/sources/scheduler";
import { checkSourceSecretKey } from "@/lib/sources/secrets";

/** Every problem found, one line each (none: the settings are usable). */
export function settingsProblems(): string[] {
  const checks = [
    getConfig,
    () => parseTrustedProxies(process.env.TRUSTED_PROXIES),
    () => parseProxyHeader(process.env.TRUSTED_PROXY_HEADER),
    checkSourceSecretKey,
    sourceLimits,
    schedulerEnabled,
  ];
  const problems: string[] = [];
  for (const check of checks) {
    try {
      check();
    } catch (err) {
      problems.push(err instanceof Error ? err.message : String(err));
    }
  }
  return problems;
}

/** Stops the process with a message per problem when the settings are not usable (instrumentation.ts, at start). */
export function exitOnSettingsProblems(): void {
  const problems = settingsProblems();
  if (!problems.length) return;
  for (const p of problems) console.error(`[config] ${p}`);
  console.error("[config] the server stops: correct these settings and start it again");
  process.exit(1);
}
