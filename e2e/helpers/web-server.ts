/**
 * A loopback HTTP server for tests that serve web handlers (Request → Response) directly, doing what server.mjs
 * does for the app: the socket's peer, or `x-test-peer` when a test stands for another machine, in the header
 * only the server sets.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { PEER_HEADER, peerHeaderFor } from "../../lib/auth/peer";

export interface WebServer {
  base: string;
  close(): Promise<void>;
}

export async function serveWeb(handle: (request: Request, url: URL) => Promise<Response>): Promise<WebServer> {
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? "/", `http://${req.headers.host}`);
    const request = new Request(url, {
      method: req.method,
      headers: {
        ...(req.headers as Record<string, string>),
        [PEER_HEADER]: peerHeaderFor(
          (req.headers["x-test-peer"] as string) ?? req.socket.remoteAddress ?? "",
          req.headers as Record<string, string>,
        ),
      },
      body: req.method === "POST" ? Buffer.concat(chunks) : undefined,
    });
    const response = await handle(request, url);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  // As server.mjs: a client's kept-alive socket outlives its own idle timeout (undici: 4 s) here, so the server never
  // closes one just as the client sends on it (ECONNRESET on a busy machine, where 5 s pass unnoticed).
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
