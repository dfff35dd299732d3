/**
 * A tiny HTTP proxy in front of a real server, for the sources' tests: it passes requests through unchanged,
 * except the next `busy` ones, which it answers itself with 429 or 503 and a Retry-After, PROPFINDs under
 * `endless`, which it answers with a folder holding one more new folder every time (a listing that never ends), and
 * whatever `answer` answers (a hostile server's reply of the test's making).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface BusyProxy {
  origin: string;
  /** Answers the next requests, one entry each, with this status and Retry-After (removed as used). */
  busy: { status: 429 | 503; retryAfter: string }[];
  /** A path prefix whose PROPFINDs the proxy answers with an invented child folder. */
  endless: string | null;
  /** Answers a request itself when this returns an answer (a hostile server's), else passes it on. */
  answer: ((method: string, url: string) => { status: number; type: string; body: string } | null) | null;
  /** What the proxy answered itself, "METHOD /path STATUS". */
  answered: string[];
  close(): Promise<void>;
}

export async function startBusyProxy(target: string, port = 0): Promise<BusyProxy> {
  const upstream = new URL(target);
  const state: Omit<BusyProxy, "origin" | "close"> = { busy: [], endless: null, answer: null, answered: [] };
  const server = http.createServer((req, res) => {
    const url = req.url ?? "/";
    const busy = state.busy.shift();
    if (busy) {
      state.answered.push(`${req.method} ${url} ${busy.status}`);
      req.resume();
      res.writeHead(busy.status, { "retry-after": busy.retryAfter, "content-type": "text/plain" }).end("busy, come back later");
      return;
    }
    const own = state.answer?.(req.method ?? "GET", url);
    if (own) {
      state.answered.push(`${req.method} ${url} ${own.status}`);
      req.resume();
      res.writeHead(own.status, { "content-type": own.type }).end(own.body);
      return;
    }
    if (state.endless && req.method === "PROPFIND" && url.startsWith(state.endless)) {
      state.answered.push(`${req.method} ${url} 207`);
      req.resume();
      const self = url.endsWith("/") ? url : `${url}/`;
      const child = `${self}${state.answered.length}/`;
      const response = (href: string) =>
        `<D:response><D:href>${href}</D:href><D:propstat><D:prop><D:resourcetype><D:collection/></D:resourcetype></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>`;
      res
        .writeHead(207, { "content-type": 'application/xml; charset="utf-8"' })
        .end(`<?xml version="1.0"?><D:multistatus xmlns:D="DAV:">${response(self)}${response(child)}</D:multistatus>`);
      return;
    }
    const out = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: url, headers: { ...req.headers, host: upstream.host } },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    out.on("error", () => res.writeHead(502).end());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(state, {
    origin,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
