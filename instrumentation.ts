/** Runs once when a Next.js server starts: index the knowledge folder in the background. */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startStartup } = await import("./lib/server/startup");
  // Not awaited: the server answers requests (and /api/health says 503) while indexing runs.
  void startStartup();
  // server.mjs serves MCP requests through this directly (mcp/endpoint.ts).
  const { registerMcpEndpoint } = await import("./mcp/endpoint");
  registerMcpEndpoint();
}
