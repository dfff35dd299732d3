/**
 * POST /api/session (the route module itself) on a real store: wrong passwords from one address spend that
 * address's budget across accounts (password spraying), and an IPv6 /64 counts as one address — in the
 * sign-in budget and in the address key every per-address limiter uses.
 */
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST } from "@/app/api/session/route";
import { PEER_HEADER, peerHeaderFor } from "@/lib/auth/peer";
import { addressKey } from "@/lib/auth/rate-limit";
import { getStore, type Store } from "@/lib/store";
import { leaveTestDataDir, useTestDataDir } from "@/lib/test-helpers/env";
import { createUser } from "./service";
import { getAccountStore } from "./store";

const saved = { ...process.env };
const PASSWORD = "the right password";
const LIMIT = 4;
let dir: string;
let store: Store;

const signIn = (email: string, password: string, peer: string) =>
  POST(
    new Request("http://127.0.0.1/api/session", {
      method: "POST",
      headers: { "content-type": "application/json", host: "127.0.0.1", [PEER_HEADER]: peerHeaderFor(peer) },
      body: JSON.stringify({ email, password }),
    }),
    { params: Promise.resolve({}) },
  );

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "spraying-test-"));
  useTestDataDir(dir, { AUTH_FAILURE_LIMIT: String(LIMIT) }, ["TRUSTED_PROXIES"]);
  store = await getStore();
  const accounts = await getAccountStore(store);
  for (let i = 0; i < 2 * LIMIT + 4; i++) {
    await createUser(accounts, { email: `p${i}@team.test`, name: "", password: PASSWORD, role: "reader", kbs: [] }, []);
  }
}, 120_000);

afterAll(() => leaveTestDataDir(store, saved, dir));

describe("password spraying", () => {
  it("one wrong password per account from one address spends the address's budget: the next account's right password gets 429", async () => {
    for (let i = 0; i < LIMIT; i++) expect((await signIn(`p${i}@team.test`, "Winter2026!", "10.80.0.1")).status).toBe(401);
    expect((await signIn(`p${LIMIT}@team.test`, PASSWORD, "10.80.0.1")).status).toBe(429);
    // Another address is not held back by it.
    expect((await signIn(`p${LIMIT}@team.test`, PASSWORD, "10.80.0.2")).status).toBe(200);
  }, 120_000);

  it("an IPv6 /64 is one address: spraying from many addresses of one /64 is stopped, the next /64 is not", async () => {
    for (let i = 0; i < LIMIT; i++) {
      const res = await signIn(`p${LIMIT + 1 + i}@team.test`, "Winter2026!", `2001:db8:7:9::${(i + 1).toString(16)}`);
      expect(res.status).toBe(401);
    }
    const last = `p${2 * LIMIT + 1}@team.test`;
    expect((await signIn(last, PASSWORD, "2001:db8:7:9:ffff:1:2:3")).status).toBe(429);
    expect((await signIn(last, PASSWORD, "2001:db8:7:a::1")).status).toBe(200);
  }, 120_000);

  it("the address key every per-address limiter uses: IPv4 itself, IPv6 by /64, mapped IPv4 as IPv4", () => {
    expect(addressKey("10.1.2.3")).toBe("ip:10.1.2.3");
    expect(addressKey("2001:db8:7:9::1")).toBe(addressKey("[2001:0db8:0007:0009:ffff:ffff:ffff:ffff]"));
    expect(addressKey("2001:db8:7:9::1")).not.toBe(addressKey("2001:db8:7:a::1"));
    expect(addressKey("::ffff:10.1.2.3")).toBe("ip:10.1.2.3");
    expect(addressKey("fe80::1%eth0")).toBe("ip6:fe80:0:0:0::/64");
    expect(addressKey("unknown")).toBe("ip:unknown");
  });
});
