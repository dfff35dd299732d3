/** The one guarded way into every route handler: access, validation and one error shape. */
import { beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { getAuditLog } from "@/lib/audit/log";
import { PEER_HEADER, peerHeaderFor } from "@/lib/auth/peer";
import { MAX_JSON_BODY_BYTES } from "@/lib/http/body";
import { getStore } from "@/lib/store";
import { tempDirs } from "@/lib/test-helpers/temp-dirs";
import { AppError } from "@/lib/types";
import { route } from "./route";

const local = (init: RequestInit = {}, url = "http://127.0.0.1:3000/api/x") =>
  new Request(url, {
    ...init,
    headers: { host: "127.0.0.1:3000", [PEER_HEADER]: peerHeaderFor("127.0.0.1"), ...(init.headers as Record<string, string>) },
  });
const json = (body: string, headers: Record<string, string> = {}) =>
  local({ method: "POST", body, headers: { "content-type": "application/json", ...headers } });
const ctx = (params: Record<string, string>) => ({ params: Promise.resolve(params) });

const dataDir = tempDirs("route-");
beforeAll(async () => {
  // Refused requests are audited in the app's store: a fresh one for this file.
  process.env.DATA_DIR = await dataDir();
});

describe("route()", () => {
  it("refuses a remote caller before the handler runs, with the one error shape", async () => {
    const handler = vi.fn(async () => ({ ok: true }));
    const res = await route(
      {},
      handler,
    )(new Request("http://10.0.0.1:3000/api/x", { headers: { [PEER_HEADER]: peerHeaderFor("10.0.0.9") } }));
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="admin"');
    expect(await res.json()).toEqual({ error: { code: "unauthorized", message: expect.stringContaining("admin secret") } });
    expect(handler).not.toHaveBeenCalled();
  });

  it("validates JSON bodies and path parameters", async () => {
    const create = route({ status: 201 }, async ({ body }) => ({ got: await body(z.object({ name: z.string() })) }));
    expect((await create(json("{"))).status).toBe(400);
    const bad = await create(json(JSON.stringify({ name: 5 })));
    expect(await bad.json()).toEqual({ error: { code: "bad_request", message: expect.stringMatching(/^name: /) } });
    const good = await create(json(JSON.stringify({ name: "a" }), { "content-type": "application/json; charset=utf-8" }));
    expect([good.status, await good.json()]).toEqual([201, { got: { name: "a" } }]);

    const byId = route({ params: z.object({ id: z.string().regex(/^[a-z]+$/) }) }, async ({ params }) => params);
    expect((await byId(local(), ctx({ id: "BAD" }))).status).toBe(400);
    expect(await (await byId(local(), ctx({ id: "abc" }))).json()).toEqual({ id: "abc" });
    const named = route(
      { params: z.object({ id: z.string().regex(/^[a-z]+$/) }), notFound: "No such thing." },
      async ({ params }) => params,
    );
    expect(await (await named(local(), ctx({ id: "BAD" }))).json()).toEqual({ error: { code: "not_found", message: "No such thing." } });
  });

  it("takes JSON bodies only as application/json, and only up to the limit (counted while reading)", async () => {
    const handler = vi.fn(async ({ body }) => ({ got: await body(z.object({ name: z.string() })) }));
    const create = route({ status: 201 }, handler);
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ""]) {
      const res = await create(
        local({ method: "POST", body: JSON.stringify({ name: "a" }), headers: type ? { "content-type": type } : {} }),
      );
      expect([res.status, (await res.json()).error.code]).toEqual([415, "unsupported_type"]);
    }
    const big = JSON.stringify({ name: "x".repeat(MAX_JSON_BODY_BYTES) });
    const streamed = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(big));
        c.close();
      },
    });
    const res = await create(
      local({ method: "POST", body: streamed, headers: { "content-type": "application/json" }, duplex: "half" } as RequestInit),
    );
    expect([res.status, (await res.json()).error.code]).toEqual([413, "too_large"]);
  });

  it("refuses a browser request from any origin but the app's own, loopback ports included", async () => {
    const handler = vi.fn(async () => ({ ok: true }));
    const change = route({ status: 201 }, handler);
    for (const origin of ["http://localhost:9999", "http://127.0.0.1:9999", "http://evil.example"]) {
      const res = await change(json("{}", { origin }));
      expect([res.status, (await res.json()).error.code]).toEqual([403, "forbidden"]);
    }
    expect(handler).not.toHaveBeenCalled();
    expect((await change(json("{}", { origin: "http://127.0.0.1:3000" }))).status).toBe(201);
  });

  it("records every refused attempt (403, 429) in the audit log: what was tried, from where and why not", async () => {
    const remote = (headers: Record<string, string>) =>
      new Request("http://10.0.0.1:3000/api/kbs", {
        headers: { host: "10.0.0.1:3000", [PEER_HEADER]: peerHeaderFor("10.0.0.31"), ...headers },
      });
    const list = route({}, async () => ({ ok: true }));
    expect((await list(json("{}", { origin: "http://evil.example" }))).status).toBe(403);
    process.env.AUTH_FAILURE_LIMIT = "2";
    try {
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await list(remote({ authorization: `Bearer wrong-${i}` }))).status);
      expect(statuses).toEqual([401, 401, 429]);
    } finally {
      delete process.env.AUTH_FAILURE_LIMIT;
    }
    const refused = await (await getAuditLog(await getStore())).list({ action: "access_denied" });
    expect(refused).toContainEqual(
      expect.objectContaining({
        outcome: "denied",
        target: "GET /api/kbs",
        address: "10.0.0.31",
        detail: expect.stringMatching(/^429: Too many/),
      }),
    );
    expect(refused).toContainEqual(
      expect.objectContaining({
        outcome: "denied",
        target: "POST /api/x",
        detail: expect.stringMatching(/^403: Requests from this origin/),
      }),
    );
  });

  it("maps AppErrors to their status and hides anything else behind a 500", async () => {
    const conflict = await route({}, async () => {
      throw new AppError("conflict", "Already there.");
    })(local());
    expect([conflict.status, await conflict.json()]).toEqual([409, { error: { code: "conflict", message: "Already there." } }]);
    const spy = vi.spyOn(console, "error").mockImplementation(() => {});
    const boom = await route({}, async () => {
      throw new Error("secret internals at /srv/db");
    })(local());
    spy.mockRestore();
    expect(boom.status).toBe(500);
    expect(await boom.text()).not.toContain("internals");
  });
});
