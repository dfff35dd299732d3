/**
 * The scale bench's reference server: SQLite FTS5 (lib/retrieve/fts5-reference.ts) behind an MCP server as thin
 * as the app's — the MCP SDK, Streamable HTTP, stateless, JSON responses, a fresh server per request — with one
 * tool of the same name and arguments as ours (search_knowledge {query, top_k}).
 *   tsx scripts/fts5-mcp-server.ts <fts5 file> <port>
 */
import { createServer } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";
import { openFts5Reference } from "@/lib/retrieve/fts5-reference";
import { TOOL } from "@/lib/tools/names";

const [file, port] = process.argv.slice(2);
const fts5 = openFts5Reference(file);

function mcpServer(): McpServer {
  const server = new McpServer({ name: "fts5-reference", version: "1.0.0" });
  server.registerTool(
    TOOL.searchKnowledge,
    {
      description: "Full-text search (SQLite FTS5, BM25).",
      inputSchema: { query: z.string(), top_k: z.number().int().min(1).max(50).optional() },
    },
    async ({ query, top_k }) => {
      const hits = fts5.search(query, top_k ?? 5);
      return { content: hits.map((h, i) => ({ type: "text" as const, text: `[${i + 1}] ${h.doc}\n${h.text}` })) };
    },
  );
  return server;
}

createServer(async (req, res) => {
  const server = mcpServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on("close", () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
}).listen(Number(port), "127.0.0.1", () => console.log("ready"));
