/**
 * The app's MCP endpoint served from this process on a loopback port (the terminal `ask`, and tests that
 * need a real MCP client over HTTP without the Next server): the same handler as /api/mcp and /api/mcp/<kb>.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { AuthSettings } from "@/lib/auth/config";
import { PEER_HEADER, peerHeaderFor } from "@/lib/auth/peer";
import type { Registry } from "@/lib/kb/registry";
import type { Store } from "@/lib/store";
import { handleMcpRequest } from "@/mcp/http";

export interface LocalMcp {
  /** http://127.0.0.1:<port>/api/mcp */
  url: string;
  close(): Promise<void>;
}

export async function startLocalMcp(opts: { store: Store; registry?: Registry; auth?: AuthSettings }): Promise<LocalMcp> {
  const server = http.createServer(async (req, res) => {
    try {
      const parts: Buffer[] = [];
      for await (const c of req) parts.push(c as Buffer);
      const url = new URL(req.url ?? "/", `http://${req.headers.host}`);
      const m = /^\/api\/mcp(?:\/([^/]+))?$/.exec(url.pathname);
      if (!m) {
        res.writeHead(404).end();
        return;
      }
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
      // What server.mjs does: the socket's real peer, in the header only the server sets.
      headers.set(PEER_HEADER, peerHeaderFor(req.socket.remoteAddress ?? "", req.headers as Record<string, string>));
      const request = new Request(url, { method: req.method, headers, body: req.method === "POST" ? Buffer.concat(parts) : undefined });
      const kb = m[1] ? decodeURIComponent(m[1]) : undefined;
      const response = await handleMcpRequest(request, { kb, getStore: async () => opts.store, registry: opts.registry, auth: opts.auth });
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    } catch (err) {
      console.error("[mcp] local request failed:", err);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    }
  });
  // Keep idle connections open longer than a client may wait between questions (a closed keep-alive socket the
  // client reuses reads as ECONNRESET).
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/mcp`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
