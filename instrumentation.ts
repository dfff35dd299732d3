/** Runs once when a Next.js server starts: checks the settings, then indexes the knowledge folder in the background. */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { settingsProblems } = await import("./lib/server/settings-check");
  const problems = settingsProblems();
  if (problems.length) {
    for (const p of problems) console.error(`[config] ${p}`);
    console.error("[config] the server stops: correct these settings and start it again");
    process.exit(1);
  }
  const { startStartup } = await import("./lib/server/startup");
  // Not awaited: the server answers requests (and /api/health says 503) while indexing runs.
  void startStartup();
  // server.mjs serves MCP requests through this directly (mcp/endpoint.ts).
  const { registerMcpEndpoint } = await import("./mcp/endpoint");
  registerMcpEndpoint();
}
