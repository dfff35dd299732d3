/**
 * Attacks from this machine, against a server this spec starts through server.mjs (so it reads the server's
 * output): a page on another localhost port cannot make changes, a refused body never leaves a keep-alive
 * connection hanging, and an upload cut off mid-stream throws nothing.
 */
import net from "node:net";
import path from "node:path";
import { type OwnServer, startOwnServer } from "./helpers/own-server";
import { expect, PORT_BASE, test, WORKER_DATA_DIR } from "./helpers/servers";

const PORT = PORT_BASE + 10;
const DATA = path.resolve(WORKER_DATA_DIR, `hardening-${Date.now().toString(36)}`);
const MB = 1024 * 1024;
let app: OwnServer;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(300_000);
  // Small limits, so refusals come after a few MB: MCP bodies stop at 2 × 1 MB + 1 MB, uploads at 2 MB in all.
  app = await startOwnServer(PORT, {
    DATA_DIR: DATA,
    KNOWLEDGE_DIR: path.join(DATA, "no-knowledge"),
    MAX_UPLOAD_MB: "1",
    MAX_UPLOAD_TOTAL_MB: "2",
  });
});
test.afterAll(async () => {
  await app?.stop();
});

const FOREIGN = "http://localhost:9999";

async function count(pathname: string, key: string): Promise<number> {
  const res = await fetch(`${app.base}${pathname}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as Record<string, unknown[]>)[key].length;
}

test("a page on another localhost port can neither mint tokens, create knowledge bases nor upload", async () => {
  const tokens = await count("/api/tokens", "tokens");
  const kbs = await count("/api/kbs", "kbs");
  const documents = await count("/api/documents", "documents");
  const post = (pathname: string, body: BodyInit, headers: Record<string, string>) =>
    fetch(`${app.base}${pathname}`, { method: "POST", body, headers });

  // What a browser sends cross-origin without a preflight: text/plain (and no Origin check would stop it).
  for (const [pathname, body] of [
    ["/api/tokens", '{"name":"x","scope":"read-write"}'],
    ["/api/kbs", '{"name":"planted"}'],
  ]) {
    const foreign = await post(pathname, body, { Origin: FOREIGN, "Content-Type": "text/plain" });
    expect(foreign.status, pathname).toBe(403);
    const loopback = await post(pathname, body, { Origin: "http://127.0.0.1:9999", "Content-Type": "application/json" });
    expect(loopback.status, pathname).toBe(403);
    // Even from the app's own origin, a JSON route takes only application/json.
    const plain = await post(pathname, body, { Origin: app.base, "Content-Type": "text/plain" });
    expect(plain.status, pathname).toBe(415);
  }
  const form = new FormData();
  form.append("files", new File(["# Planted\n\nA document a foreign page planted."], "planted.md"));
  expect((await post("/api/documents", form, { Origin: FOREIGN })).status).toBe(403);

  expect(await count("/api/tokens", "tokens")).toBe(tokens);
  expect(await count("/api/kbs", "kbs")).toBe(kbs);
  expect(await count("/api/documents", "documents")).toBe(documents);

  // The app's own pages still work.
  const own = await post("/api/kbs", JSON.stringify({ name: "own-origin" }), { Origin: app.base, "Content-Type": "application/json" });
  expect(own.status).toBe(201);
});

/**
 * Sends `head` + `bodyBytes` bytes of body and, pipelined behind it on the same socket, a GET /api/health.
 * Resolves with the first status line, then whether the second request was answered or the socket closed
 * ("hung" when neither happened within 5 s of the first answer).
 */
function pipelinedAfter(head: string, bodyBytes: number) {
  return new Promise<{ first: string; then: "answered" | "closed" | "hung" }>((resolve) => {
    const socket = net.connect(PORT, "127.0.0.1");
    let text = "";
    let firstAnswered = false;
    let settled = false;
    const finish = (then: "answered" | "closed" | "hung") => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ first: text.split("\r\n")[0], then });
    };
    const timer = setTimeout(() => finish("hung"), 30_000);
    socket.on("data", (d) => {
      text += d;
      if (!firstAnswered && text.includes("\r\n\r\n")) {
        firstAnswered = true;
        setTimeout(() => finish("hung"), 5_000);
      }
      if ((text.match(/HTTP\/1\.1 \d{3}/g) ?? []).length >= 2) finish("answered");
    });
    socket.on("close", () => finish(firstAnswered ? "closed" : "hung"));
    socket.on("error", () => {}); // the server may close while the body is still being written
    socket.write(head.replace(/\n/g, "\r\n"));
    const piece = Buffer.alloc(64 * 1024, "a");
    let sent = 0;
    const pump = () => {
      while (sent < bodyBytes && !socket.destroyed) {
        sent += piece.length;
        if (!socket.write(piece)) return void socket.once("drain", pump);
      }
      if (!socket.destroyed) socket.write(`GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:${PORT}\r\n\r\n`);
    };
    pump();
  });
}

test("a refused oversized body answers, then the connection answers the next request or closes (never hangs)", async () => {
  const size = 6 * MB;
  const mcp = await pipelinedAfter(
    `POST /api/mcp HTTP/1.1\nHost: 127.0.0.1:${PORT}\nConnection: keep-alive\nContent-Type: application/json\nAccept: application/json, text/event-stream\nContent-Length: ${size}\n\n`,
    size,
  );
  expect(mcp.first).toBe("HTTP/1.1 413 Payload Too Large");
  expect(mcp.then).not.toBe("hung");

  const api = await pipelinedAfter(
    `POST /api/kbs HTTP/1.1\nHost: 127.0.0.1:${PORT}\nConnection: keep-alive\nContent-Type: application/json\nContent-Length: ${size}\n\n`,
    size,
  );
  expect(api.first).toBe("HTTP/1.1 413 Payload Too Large");
  expect(api.then).not.toBe("hung");

  // Chunked, with no length to refuse up front: refused while reading.
  const chunked = await new Promise<string>((resolve) => {
    const socket = net.connect(PORT, "127.0.0.1");
    let text = "";
    socket.on("data", (d) => (text += d));
    socket.on("close", () => resolve(text.split("\r\n")[0]));
    socket.on("error", () => {});
    socket.write(
      `POST /api/mcp HTTP/1.1\r\nHost: 127.0.0.1:${PORT}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
    );
    const piece = Buffer.alloc(64 * 1024, "a");
    let sent = 0;
    const pump = () => {
      while (sent < size && !socket.destroyed) {
        sent += piece.length;
        if (!socket.write(`${piece.length.toString(16)}\r\n${piece}\r\n`)) return void socket.once("drain", pump);
      }
    };
    pump();
    setTimeout(() => socket.destroy(), 10_000);
  });
  expect(chunked).toBe("HTTP/1.1 413 Payload Too Large");
  // The server is still fine.
  expect((await fetch(`${app.base}/api/health`)).status).toBe(200);
});

test("an upload cut off mid-stream, or past the total limit, leaves no uncaught exception", async () => {
  const boundary = "----hardening";
  const partHead = (name: string) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="${name}"\r\nContent-Type: text/plain\r\n\r\n`;
  const before = app.output().length;

  for (let i = 0; i < 3; i++) {
    // Cut off: a declared 900 KB file of which 300 KB arrive before the client goes away.
    await new Promise<void>((resolve) => {
      const socket = net.connect(PORT, "127.0.0.1", () => {
        socket.write(
          `POST /api/documents HTTP/1.1\r\nHost: 127.0.0.1:${PORT}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${900 * 1024}\r\n\r\n`,
        );
        socket.write(partHead(`cut-${i}.txt`));
        socket.write(Buffer.alloc(300 * 1024, "word "));
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 300);
      });
      socket.on("error", () => {});
    });
  }
  // Past the 2 MB total: three 900 KB files.
  const form = new FormData();
  for (let i = 0; i < 3; i++) form.append("files", new File([Buffer.alloc(900 * 1024, "word ")], `big-${i}.txt`));
  const over = await fetch(`${app.base}/api/documents`, { method: "POST", body: form }).catch((err) => err as Error);
  if (!(over instanceof Error)) expect(over.status).toBe(413);

  await new Promise((r) => setTimeout(r, 1000));
  const output = app.output().slice(before);
  expect(output).not.toMatch(/uncaughtException|Unexpected end of file|unhandledRejection/);
  expect((await fetch(`${app.base}/api/health`)).status).toBe(200);
  expect(await count("/api/documents", "documents")).toBe(0);
});
