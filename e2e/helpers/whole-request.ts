import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * A contract server's request handler, called once the whole body is read (as UTF-8): the servers answer from the
 * body and record it, so a test can see what a client sent.
 */
export function withBody(handle: (req: IncomingMessage, res: ServerResponse, body: string) => void) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const parts: Buffer[] = [];
    req.on("data", (c: Buffer) => parts.push(c));
    req.on("end", () => handle(req, res, Buffer.concat(parts).toString("utf8")));
  };
}
