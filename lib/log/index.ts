/**
 * Structured JSON logs (pino) on stdout. LOG_LEVEL sets the level (default "info"; "silent" under vitest
 * unless LOG_LEVEL is set). Per-request loggers carry a request id that this server generates: an incoming
 * X-Request-Id header is never trusted.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import pino, { type DestinationStream, type Logger } from "pino";
import { processGlobal } from "@/lib/process-global";

export type { Logger } from "pino";

const KEY = Symbol.for("kb-mcp-chat.logger");
type Global = typeof globalThis & { [KEY]?: Logger };

interface RequestContext {
  reqId: string;
}

function requestContext(): AsyncLocalStorage<RequestContext> {
  return processGlobal("request-context", () => new AsyncLocalStorage<RequestContext>());
}

/**
 * Runs `fn` as one request: every log line written inside it (across awaits) carries `reqId`.
 * The id is generated here unless given; never take it from a client's header.
 */
export function withRequestId<T>(fn: () => T, reqId: string = newRequestId()): T {
  return requestContext().run({ reqId }, fn);
}

/** A root logger as the app makes it (JSON lines, ISO time, the request id of the current request). */
export function createLogger(destination?: DestinationStream, level?: string): Logger {
  const options = {
    level: level ?? (process.env.LOG_LEVEL || (process.env.VITEST ? "silent" : "info")),
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin: () => {
      const ctx = requestContext().getStore();
      return ctx ? { reqId: ctx.reqId } : {};
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

/** The process-wide logger (shared by every Next bundle of the process). */
export function getLogger(): Logger {
  const g = globalThis as Global;
  g[KEY] ??= createLogger();
  return g[KEY];
}

/**
 * Makes the process-wide logger the command line's (call it before anything logs): JSON lines on stderr, so
 * stdout carries only the command's own output (`npm run ask -- --json` stays one JSON document), at LOG_LEVEL
 * or else "warn" (someone reads that output: the info lines of every step would bury it).
 */
export function logForCommandLine(): void {
  const level = process.env.LOG_LEVEL || (process.env.VITEST ? "silent" : "warn");
  (globalThis as Global)[KEY] = createLogger(pino.destination({ dest: 2, sync: true }), level);
}

/** A logger for one component, e.g. log("store") → {"component":"store",…}. */
export function log(component: string): Logger {
  return getLogger().child({ component });
}

export function newRequestId(): string {
  return randomUUID();
}
