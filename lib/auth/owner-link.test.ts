/**
 * The owner's ways in on a real store: each owner link signs in once (the start-up one and those `npm run
 * owner-link` asks for), and wrong credentials from 127.0.0.1 — all a bare same-host proxy ever shows the app —
 * lock out neither the owner link nor an admin secret nobody can guess.
 */
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getAccountStore } from "@/lib/auth/accounts/store";
import { getConfig } from "@/lib/config";
import { getStore, type Store } from "@/lib/store";
import { leaveTestDataDir, useTestDataDir } from "@/lib/test-helpers/env";
import { AppError } from "@/lib/types";
import { type AuthSettings, resolveAuthSettings } from "./config";
import { signInWithOwnerLink } from "./owner-link";
import { REQUESTED_LINK_MINUTES, requestOwnerLinkToken } from "./owner-link-tokens";
import { PEER_HEADER, peerHeaderFor } from "./peer";
import { authenticateApp } from "./principal";

const saved = { ...process.env };
const LIMIT = 3;
let dir: string;
let store: Store;

const accounts = async () => getAccountStore(store);
const settings = (over: Partial<AuthSettings> = {}): AuthSettings => ({
  ...resolveAuthSettings({ rateLimitPerMinute: 1000, allowedOrigins: [], authFailuresPerMinute: LIMIT }),
  ownerLinkToken: "startup-token-0123456789abcdefghijklmn",
  ...over,
});
const headers = (peer: string, extra: Record<string, string> = {}) => ({
  host: "127.0.0.1:3000",
  ...extra,
  [PEER_HEADER]: peerHeaderFor(peer),
});

/** The status `signInWithOwnerLink` answers a link with `token` from `peer`, and its message when refused. */
async function openLink(token: string, s: AuthSettings, peer = "127.0.0.1"): Promise<{ status: number; message?: string }> {
  const req = new Request(`http://127.0.0.1:3000/api/session/owner?token=${encodeURIComponent(token)}`, { headers: headers(peer) });
  return signInWithOwnerLink(req, accounts, s).then(
    (res) => ({ status: res.status }),
    (err: unknown) => (err instanceof AppError ? { status: err.status, message: err.message } : Promise.reject(err)),
  );
}

/** The status of GET /api/users's access check with `authorization` from `peer` (200: let through). */
async function bearer(secret: string, s: AuthSettings, peer = "127.0.0.1"): Promise<number> {
  const req = new Request("http://127.0.0.1:3000/api/users", { headers: headers(peer, { authorization: `Bearer ${secret}` }) });
  return authenticateApp(req, { accounts, settings: s }).then(
    () => 200,
    (err: unknown) => (err instanceof AppError ? err.status : Promise.reject(err)),
  );
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "owner-link-test-"));
  useTestDataDir(dir, {}, ["TRUSTED_PROXIES", "LOCAL_OWNER", "ADMIN_SECRET_FILE"]);
  store = await getStore();
}, 120_000);

afterAll(() => leaveTestDataDir(store, saved, dir));

describe("the owner link", () => {
  it("printed at start, signs in once", async () => {
    const s = settings({ ownerLinkToken: "startup-once-0123456789abcdefghijklmnop" });
    expect((await openLink("startup-once-0123456789abcdefghijklmnop", s)).status).toBe(303);
    const again = await openLink("startup-once-0123456789abcdefghijklmnop", s, "10.7.0.4");
    expect(again.status).toBe(401);
    expect(again.message).toContain("npm run owner-link");
  });

  it("asked for with `npm run owner-link`, signs in once; a newer one replaces it; it expires", async () => {
    const s = settings();
    const token = requestOwnerLinkToken(getConfig());
    // Each refusal from an address of its own, so that none of them is a 429 of a spent budget.
    expect((await openLink(token, s)).status).toBe(303);
    expect((await openLink(token, s, "10.7.0.1")).status).toBe(401);

    const older = requestOwnerLinkToken(getConfig());
    const newer = requestOwnerLinkToken(getConfig());
    expect((await openLink(older, s, "10.7.0.2")).status).toBe(401);
    expect((await openLink(newer, s)).status).toBe(303);

    const stale = requestOwnerLinkToken(getConfig(), Date.now() - (REQUESTED_LINK_MINUTES + 1) * 60_000);
    expect((await openLink(stale, s, "10.7.0.3")).status).toBe(401);
  });
});

describe("wrong credentials from 127.0.0.1 (a bare proxy's address for everyone)", () => {
  it("lock out neither the owner link nor an unguessable admin secret; wrong ones still get 429", async () => {
    const strong = "a-long-random-admin-token-0123456789abcdef";
    const s = settings({ adminToken: strong, ownerLinkToken: "startup-lockout-0123456789abcdefghijklmn" });
    const wrongBearers = [];
    for (let i = 0; i <= LIMIT; i++) wrongBearers.push(await bearer(`wrong-${i}`, s));
    expect(wrongBearers.at(-1)).toBe(429);
    const wrongLinks = [];
    for (let i = 0; i <= LIMIT; i++) wrongLinks.push((await openLink(`guess-${i}`, s)).status);
    expect(wrongLinks.at(-1)).toBe(429);

    expect(await bearer(strong, s)).toBe(200);
    expect((await openLink("startup-lockout-0123456789abcdefghijklmn", s)).status).toBe(303);
    expect((await openLink(requestOwnerLinkToken(getConfig()), s)).status).toBe(303);
  });

  it("still lock out a guessable ADMIN_TOKEN (under 32 characters) from that address", async () => {
    const s = settings({ adminToken: "short-admin-token" });
    for (let i = 0; i <= LIMIT; i++) await bearer(`wrong-short-${i}`, s, "10.9.8.7");
    expect(await bearer("short-admin-token", s, "10.9.8.7")).toBe(429);
    expect(await bearer("short-admin-token", s, "10.9.8.6")).toBe(200);
  });
});
