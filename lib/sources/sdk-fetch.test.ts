import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sdkFetch } from "./sdk-fetch";

let server: http.Server;
let origin: string;
const seen: { method: string; url: string; body: string; auth: string | undefined }[] = [];

beforeAll(async () => {
  process.env.SOURCE_ALLOW_HOSTS = "127.0.0.1";
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      seen.push({ method: req.method ?? "", url: req.url ?? "", body, auth: req.headers.authorization });
      if (req.url === "/away") res.writeHead(302, { location: "http://example.invalid/" }).end();
      else if (req.url === "/big") res.end("x".repeat(5000));
      else res.writeHead(200, { "content-type": "application/json", "set-cookie": ["a=1", "b=2"] }).end(JSON.stringify({ ok: true }));
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  delete process.env.SOURCE_ALLOW_HOSTS;
  server.close();
});

describe("the fetch the services' SDKs are given", () => {
  const ctx = { signal: new AbortController().signal, maxBytes: 1000 };

  it("sends the method, headers and body, and answers a Response with the service's headers", async () => {
    const f = sdkFetch(ctx, { origins: [origin] });
    const res = await f(new Request(`${origin}/v1/search`, { method: "POST", headers: { authorization: "Bearer t" }, body: '{"q":1}' }));
    expect(await res.json()).toEqual({ ok: true });
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(seen.at(-1)).toEqual({ method: "POST", url: "/v1/search", body: '{"q":1}', auth: "Bearer t" });
  });

  it("refuses another origin before sending, a redirect away from the service, and an answer over the cap", async () => {
    const f = sdkFetch(ctx, { origins: [origin] });
    const before = seen.length;
    await expect(f("http://127.0.0.2:9/x")).rejects.toThrow(/not this source's service/);
    expect(seen.length).toBe(before);
    await expect(f(`${origin}/away`)).rejects.toThrow(/redirected outside the source/);
    await expect(f(`${origin}/big`)).rejects.toThrow(/larger than|over|limit|bytes/i);
  });
});
