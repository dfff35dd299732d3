/** Test-only: swapping lib/log's process-wide logger to capture log lines. */
import type { Logger } from "@/lib/log";

/** lib/log/index.ts's process-wide slot (Symbol.for: the same symbol in every module graph). */
const LOGGER_KEY = Symbol.for("kb-mcp-chat.logger");

/** Replaces the process-wide logger; loggers made by log() afterwards use it. */
export function setLogger(logger: Logger): void {
  (globalThis as Record<symbol, unknown>)[LOGGER_KEY] = logger;
}
