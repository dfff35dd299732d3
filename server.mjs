#!/usr/bin/env node
/**
 * The app's one server entry (`npm start`, scripts/app.sh, the e2e servers): Next.js's documented custom
 * server. It knows each socket's peer address, which no client can forge, and hands it to the app in the
 * `x-kb-peer` header, which it always overwrites and signs with a per-process secret. lib/auth/peer.ts
 * decides from it who is asking; a request without a valid signature (e.g. `next start` run directly) is
 * treated as remote.
 *
 * Usage: node server.mjs [-p PORT] [-H HOST]   (defaults: PORT, BIND_HOST, else 3000 on 127.0.0.1)
 */
// First: on an older Node.js or before `npm ci` this stops with what to do (see the file).
import "./scripts/node-version.mjs";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import module from "node:module";
import { constants } from "node:os";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { allocatorApplied, allocatorEnv, allocatorInUse } from "./lib/allocator.mjs";
import { API_HEADERS } from "./lib/security/headers.mjs";

// The allocator (lib/allocator.mjs) is chosen at process start-up, so the server runs itself once more
// with it unless it already does.
if (!allocatorApplied()) {
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    env: allocatorEnv(),
    stdio: ["inherit", "inherit", "inherit", "ipc"], // the channel closes when this process dies, however it dies
  });
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(sig, () => child.kill(sig));
  child.on("exit", (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)));
} else {
  await serve();
}

async function serve() {
  if (process.send) process.on("disconnect", () => process.exit(0)); // the parent above is gone
  // Compiling the app's server code is about a third of a start's CPU: V8's code cache in os.tmpdir() (or
  // NODE_COMPILE_CACHE) lets the next start skip it. Written at start-up below, not only at a clean exit.
  module.enableCompileCache?.();
  const { default: next } = await import("next");

  function arg(flags) {
    const i = process.argv.findIndex((a) => flags.includes(a));
    return i >= 0 ? process.argv[i + 1] : undefined;
  }

  const port = Number(arg(["-p", "--port"]) ?? process.env.PORT ?? 3000);
  const host = arg(["-H", "--hostname"]) ?? process.env.BIND_HOST ?? "127.0.0.1";
  const secret = randomBytes(24).toString("base64url");
  process.env.KB_PEER_SECRET = secret;
  process.env.KB_BIND_HOST = host; // where it listens: the Connect dialog shows LAN URLs from it
  process.env.KB_APP_DIR = import.meta.dirname; // where dist/workers/ lives
  // Where the app reaches itself (the chat's own MCP endpoint): never derived from a client's Host header.
  const self = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
  process.env.KB_INTERNAL_ORIGIN = `http://${self}:${port}`;
  // The owner sign-in link's secret (lib/auth/owner-link-tokens.ts): new at every start, printed below, never stored, good once.
  const ownerToken = randomBytes(24).toString("base64url");
  process.env.KB_OWNER_TOKEN = ownerToken;
  process.env.NODE_ENV ??= "production";

  // FORWARDING_HEADERS of lib/auth/peer.ts: any of them makes a request not local. Which one names the client
  // (behind a trusted proxy) peer.ts decides, so all three are passed on raw.
  const FORWARDING_HEADERS = ["forwarded", "x-forwarded-for", "x-real-ip", "via"];

  function peerHeader(req) {
    const proxied = FORWARDING_HEADERS.some((h) => req.headers[h] !== undefined);
    const facts = {
      a: req.socket.remoteAddress ?? "",
      p: proxied,
      f: req.headers.forwarded ?? null,
      x: req.headers["x-forwarded-for"] ?? null,
      r: req.headers["x-real-ip"] ?? null,
    };
    return `${secret}.${Buffer.from(JSON.stringify(facts)).toString("base64url")}`;
  }

  /**
   * `/api/mcp` and `/api/mcp/<kb>` go straight to the app's MCP endpoint (mcp/endpoint.ts), which the app
   * registers at start-up, as a web Request: Next.js's routing cost about 2 ms per request. Anything else,
   * or anything before the app registered it, is Next.js's. Returns null when the request is not taken.
   */
  const MCP_METHODS = new Set(["GET", "POST", "DELETE"]);
  function serveMcpDirectly(req, res) {
    // processGlobal(MCP_ENDPOINT_KEY) of mcp/endpoint.ts: this file is plain JS and cannot import it.
    const serveMcp = globalThis[Symbol.for("kb-mcp-chat.mcp-endpoint")];
    const m = /^\/api\/mcp(?:\/([^/?#]+))?(?:\?|$)/.exec(req.url ?? "");
    // Only the methods the route handlers export: Next.js answers the others (OPTIONS, HEAD…) as before.
    if (!serveMcp || !m || !MCP_METHODS.has(req.method ?? "")) return null;
    // A segment that is not valid percent-encoding is passed on as it is: the name check refuses it (404).
    let kb = m[1];
    try {
      kb = kb === undefined ? undefined : decodeURIComponent(kb);
    } catch {}
    let request;
    try {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        for (const v of Array.isArray(value) ? value : [value]) if (v !== undefined) headers.append(name, v);
      }
      const body = req.method === "GET" ? undefined : Readable.toWeb(req);
      request = new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, body, duplex: "half" });
    } catch {
      return null; // a malformed Host: Next.js answers it as it would any other
    }
    return serveMcp(request, kb).then(async (response) => {
      // What next.config.ts sends with every other API answer.
      for (const [name, value] of Object.entries(API_HEADERS)) res.setHeader(name, value);
      res.writeHead(response.status, [...response.headers].flat());
      // MCP answers here are whole JSON documents (no event streams): written in one piece.
      if (response.headers.get("content-type")?.startsWith("application/json")) res.end(Buffer.from(await response.arrayBuffer()));
      else if (response.body) await pipeline(Readable.fromWeb(response.body), res);
      else res.end();
    });
  }

  /**
   * A request answered before its body was read to the end (refused for its size or type, say): the rest is
   * read and dropped after the answer, so a keep-alive client's next request on the socket is answered (left
   * unread, it would wait forever), and a body still coming after DRAIN_MS closes the socket. Closing at once
   * instead would reset the connection while the client still sends, and a reset can lose the refusal.
   */
  const DRAIN_MS = 5_000;
  function drainUnreadBody(req, res) {
    res.once("finish", () => {
      if (req.complete) return;
      // Whatever read part of the body (a web stream over it) reads no more; a 'readable' listener would keep
      // the stream paused whatever resume() says.
      req.removeAllListeners("data");
      req.removeAllListeners("readable");
      req.on("data", () => {});
      req.resume();
      process.nextTick(() => req.resume());
      const timer = setTimeout(() => req.socket?.destroy(), DRAIN_MS);
      req.once("end", () => clearTimeout(timer));
      req.once("close", () => clearTimeout(timer));
    });
  }

  /** A path whose percent-encoding is not UTF-8 (`%C0%AF`, `%ZZ`) names nothing: 400 here, before the router throws on it. */
  function malformedPath(url) {
    try {
      decodeURIComponent((url ?? "/").split("?")[0]);
      return false;
    } catch {
      return true;
    }
  }

  const app = next({ dev: false, dir: import.meta.dirname, hostname: host, port });
  const handle = app.getRequestHandler();
  /** Resolved once the app is prepared: requests that come before wait for it. */
  const prepared = Promise.withResolvers();

  const server = createServer((req, res) => {
    req.headers["x-kb-peer"] = peerHeader(req); // always overwritten: never what the client sent
    drainUnreadBody(req, res);
    if (malformedPath(req.url)) {
      const body = JSON.stringify({ error: { code: "bad_request", message: "The address is not valid percent-encoded UTF-8." } });
      res.writeHead(400, { ...API_HEADERS, "Content-Type": "application/json", "Cache-Control": "no-store" }).end(body);
      return;
    }
    // MCP answers are small JSON made per request: gzipping them cost more than it saved (a search through
    // /api/mcp: p50 19.9 → 16.2 ms, 82 → 99 req/s at concurrency 8 on 2 cores). Pages and assets stay compressed.
    if (req.url?.startsWith("/api/mcp")) delete req.headers["accept-encoding"];
    const served = prepared.promise.then(() => serveMcpDirectly(req, res) ?? handle(req, res));
    served.catch((err) => {
      console.error("[server] request failed:", err);
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  // Longer than the usual proxy/client idle timeouts, so a client never writes into a socket being closed.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  // Listening comes before preparing the app, which starts indexing knowledge/ into the data folder: a port
  // that is taken ends the process with that message, and nothing has been written.
  await new Promise((resolve) => {
    server.once("error", (err) => {
      const where = `${host.includes(":") ? `[${host}]` : host}:${port}`;
      const why =
        err.code === "EADDRINUSE"
          ? `${where} is already in use (another server, or this one started twice): stop it, or choose another port with PORT=<port> or -p <port>.`
          : err.code === "EADDRNOTAVAIL"
            ? `${host} is not an address of this machine: choose another with BIND_HOST=<address> or -H <address>.`
            : err.code === "EACCES"
              ? `listening on ${where} is not permitted: choose a port above 1023 with PORT=<port> or -p <port>.`
              : `cannot listen on ${where}: ${err.message}`;
      console.error(`[server] ${why}`);
      process.exit(1);
    });
    server.listen(port, host, resolve);
  });
  await app.prepare();
  prepared.resolve();
  // The app registers its MCP endpoint last at start-up (instrumentation.ts), after checking the settings: a
  // setting that stops the server stops it before its address and owner link are printed (waited for at most 60 s).
  for (let i = 0; i < 1200 && !globalThis[Symbol.for("kb-mcp-chat.mcp-endpoint")]; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  console.log(`[server] listening on http://${host.includes(":") ? `[${host}]` : host}:${port} (memory allocator: ${allocatorInUse()})`);
  // Like Jupyter's: whoever opens it first is the owner (a session cookie), so only the person who started the server.
  console.log(
    `[server] Owner sign-in link (open it in your browser on this machine; it works once, \`npm run owner-link\` makes a new one):`,
  );
  console.log(`[server]   http://${self}:${port}/api/session/owner?token=${ownerToken}`);
  module.flushCompileCache?.();
  for (const sig of ["SIGINT", "SIGTERM"]) {
    process.on(sig, () => {
      server.close(() => process.exit(0));
      setTimeout(() => process.exit(0), 2000).unref();
    });
  }
}
