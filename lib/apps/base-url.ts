/**
 * The app's own base URL, for links that leave the app (an MCP Apps view renders inside the host, so a
 * relative link would point at the host): PUBLIC_URL when set, else the origin server.mjs listens on.
 */
export function appBaseUrl(): string {
  return (process.env.PUBLIC_URL || process.env.KB_INTERNAL_ORIGIN || "").replace(/\/+$/, "");
}
