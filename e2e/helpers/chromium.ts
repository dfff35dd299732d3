/**
 * The browser the end-to-end tests drive: CHROMIUM_PATH, else Debian's chromium-headless-shell (the headless-only
 * build Playwright itself runs for headless tests) when installed, else Debian's full Chromium. The full browser's
 * headless mode opens a hidden window per browser context, each with two omnibox pop-up pages of its own: measured on
 * the 2-core machine, 20 contexts cost 48 CPU-s there and 10 in the headless shell, of the same Chromium version.
 * The browser a spec starts in a network namespace (helpers/netns.ts) stays the full one: the headless shell does
 * not follow the OAuth consent page's redirect from the app's address to a loopback callback (e2e/oauth-remote.spec.ts).
 */
import { existsSync } from "node:fs";

const HEADLESS_SHELL = "/usr/bin/chromium-headless-shell";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || (existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : "/usr/bin/chromium");
