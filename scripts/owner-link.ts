/**
 * A new owner sign-in link for the server running on this machine, when the one it printed at start has been
 * used or lost (each link signs in once):
 *   npm run owner-link [-- --port 3000 --host 127.0.0.1]   (defaults: PORT, BIND_HOST, else 3000 on 127.0.0.1)
 * Run it with the server's settings (DATA_DIR, or ADMIN_SECRET_FILE): it writes the link's hash where the server
 * looks for it (lib/auth/owner-link-tokens.ts). The link works once, within REQUESTED_LINK_MINUTES.
 */
import { parseArgs } from "node:util";
import { REQUESTED_LINK_MINUTES, requestOwnerLinkToken } from "@/lib/auth/owner-link-tokens";

const { values } = parseArgs({ options: { port: { type: "string", short: "p" }, host: { type: "string", short: "H" } } });
const port = Number(values.port ?? process.env.PORT ?? 3000);
const host = values.host ?? process.env.BIND_HOST ?? "127.0.0.1";
// Where server.mjs says to open its link: a wildcard bind is reached on loopback.
const self = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
try {
  const token = requestOwnerLinkToken();
  console.log(`Owner sign-in link (open it in your browser; it works once, within ${REQUESTED_LINK_MINUTES} minutes):`);
  console.log(`  http://${self}:${port}/api/session/owner?token=${token}`);
} catch (err) {
  console.error(`Could not write the owner link: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
