/**
 * Structured JSON logs (pino) on stdout. LOG_LEVEL sets the level (default "info"; "silent" under vitest
 * unless LOG_LEVEL is set). Per-request loggers carry a request id that this server generates: an incoming
 * X-Request-Id header is never trusted.
 */
import { randomUUID } from "node:crypto";
import pino, { type Logger } from "pino";

export type { Logger } from "pino";

const KEY = Symbol.for("kb-mcp-chat.logger");
type Global = typeof globalThis & { [KEY]?: Logger };

/** The process-wide logger (shared by every Next bundle of the process). */
export function getLogger(): Logger {
  const g = globalThis as Global;
  if (!g[KEY]) {
    const level = process.env.LOG_LEVEL || (process.env.VITEST ? "silent" : "info");
    g[KEY] = pino({ level, base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime });
  }
  return g[KEY];
}

/** A logger for one component, e.g. log("store") → {"component":"store",…}. */
export function log(component: string): Logger {
  return getLogger().child({ component });
}

export function newRequestId(): string {
  return randomUUID();
}

/** A child logger carrying a fresh request id (returned as `reqId` too, for a response header). */
export function requestLogger(route: string): { reqId: string; logger: Logger } {
  const reqId = newRequestId();
  return { reqId, logger: getLogger().child({ reqId, route }) };
}
