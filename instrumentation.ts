/** Runs once when a Next.js server starts: checks the settings, then indexes the knowledge folder in the background. */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // Node-only work sits behind dynamic imports: Turbopack also compiles this file for the Edge runtime and would
  // warn about any Node.js API written here, though the guard above keeps it from running there.
  const { exitOnSettingsProblems } = await import("./lib/server/settings-check");
  exitOnSettingsProblems();
  const { startStartup } = await import("./lib/server/startup");
  // Not awaited: the server answers requests (and /api/health says 503) while indexing runs.
  void startStartup();
  // server.mjs serves MCP requests through this directly (mcp/endpoint.ts).
  const { registerMcpEndpoint } = await import("./mcp/endpoint");
  registerMcpEndpoint();
}
