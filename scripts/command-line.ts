/**
 * The second import of every command-line script (after node-version.mjs): logs go to stderr at LOG_LEVEL or
 * "warn" (lib/log), before any module logs.
 */
import { logForCommandLine } from "@/lib/log";

logForCommandLine();
