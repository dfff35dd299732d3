/** Start-up indexing and the health it reports, on a real store in a temp dir. */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import * as lancedb from "@lancedb/lancedb";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { GET as healthRoute } from "@/app/api/health/route";
import { PEER_HEADER, peerHeaderFor } from "@/lib/auth/peer";
import { createLogger, getLogger } from "@/lib/log";
import { getStore } from "@/lib/store";
import { sqlEq } from "@/lib/store/sql";
import { setLogger } from "@/lib/test-helpers/log";
import { checkHealth } from "./health";
import { getStartupState, startStartup, waitForStartup } from "./startup";

let dir: string;
const dirs: string[] = [];
const saved = { ...process.env };

/** As a new process: the store of the last start-up closed (its background work ends before its folder is removed). */
async function resetProcessState() {
  const g = globalThis as Record<symbol, unknown>;
  delete g[Symbol.for("kb-mcp-chat.startup")];
  const stores = g[Symbol.for("kb-mcp-chat.store")];
  delete g[Symbol.for("kb-mcp-chat.store")];
  if (stores instanceof Map) for (const s of stores.values()) await (await s).close();
}

beforeEach(async () => {
  await resetProcessState();
  process.env = { ...saved, OPENAI_API_KEY: "", EMBEDDING_PROVIDER: "offline" };
  dir = await mkdtemp(path.join(os.tmpdir(), "startup-test-"));
  dirs.push(dir);
  await mkdir(path.join(dir, "knowledge"));
  process.env.DATA_DIR = path.join(dir, "data");
  process.env.KNOWLEDGE_DIR = path.join(dir, "knowledge");
});

afterAll(async () => {
  process.env = saved;
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe("start-up indexing", () => {
  it("fails when OIDC_DEFAULT_KBS names a knowledge base that does not exist", async () => {
    Object.assign(process.env, { OIDC_ISSUER: "https://id.example.com", OIDC_CLIENT_ID: "kb", OIDC_DEFAULT_KBS: "default,hrr" });
    await startStartup();
    expect(getStartupState()).toMatchObject({
      status: "failed",
      error: expect.stringMatching(/OIDC_DEFAULT_KBS names no knowledge base: hrr/),
    });
    await resetProcessState();
    process.env.OIDC_DEFAULT_KBS = "default";
    await startStartup();
    expect(getStartupState().status).toBe("ready");
  });

  it("indexes the knowledge folder once, then reports healthy", async () => {
    await writeFile(path.join(dir, "knowledge", "a.md"), "# Alpha\n\nThe alpha rule.\n");
    await writeFile(path.join(dir, "knowledge", "b.md"), "# Beta\n\nThe beta rule.\n");
    const first = startStartup();
    expect(startStartup()).toBe(first); // one sync per process
    await first;
    const state = getStartupState();
    expect(state.status).toBe("ready");
    expect(state.status === "ready" && state.summary).toMatchObject({ added: 2, failed: [] });

    const health = await checkHealth();
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ ok: true, documents: 2, embedder: { name: expect.any(String), dimension: expect.any(Number) } });
  });

  it("tells a remote caller only whether it is ready, and this machine the details", async () => {
    await writeFile(path.join(dir, "knowledge", "a.md"), "# Alpha\n\nThe alpha rule.\n");
    await writeFile(path.join(dir, "knowledge", "bad.pdf"), "not a pdf");
    await startStartup();
    const ask = (peer: string, host: string) =>
      healthRoute(new Request(`http://${host}/api/health`, { headers: { host, [PEER_HEADER]: peerHeaderFor(peer) } }));
    const remote = await ask("10.0.0.9", "10.0.0.1:3000");
    expect([remote.status, await remote.json()]).toEqual([200, { ok: true, status: "ready" }]);
    const local = await (await ask("127.0.0.1", "127.0.0.1:3000")).json();
    expect(local).toMatchObject({ ok: true, documents: 1, knowledge: { failed: [{ file: "bad.pdf" }] } });
  });

  it("reports a failed start-up as 503 with the reason", async () => {
    process.env.CHUNK_SIZE = "lots";
    const state = await waitForStartup(60_000);
    expect(state.status).toBe("failed");
    const health = await checkHealth();
    expect(health.status).toBe(503);
    expect(health.body).toMatchObject({ ok: false, status: "failed" });
    expect(!health.body.ok && health.body.error).toContain("CHUNK_SIZE must be a positive integer");
  });

  it("is ready with nothing indexed when there is no knowledge folder", async () => {
    process.env.KNOWLEDGE_DIR = path.join(dir, "missing");
    const state = await waitForStartup(60_000);
    expect(state).toMatchObject({ status: "ready", summary: null });
    expect((await checkHealth()).body).toMatchObject({ ok: true, documents: 0 });
  });

  it("is ready once the full-text index is loaded into memory", async () => {
    await writeFile(path.join(dir, "knowledge", "a.md"), "# Alpha\n\nThe alpha rule.\n");
    await startStartup(); // builds the store and its full-text index
    await resetProcessState();
    process.env.KNOWLEDGE_DIR = path.join(dir, "missing"); // nothing to sync: ready would come at once
    const lines: string[] = [];
    const saved = getLogger();
    setLogger(
      createLogger(
        new Writable({
          write(chunk, _encoding, done) {
            lines.push(String(chunk));
            done();
          },
        }),
        "info",
      ),
    );
    try {
      await startStartup();
      expect(getStartupState().status).toBe("ready");
      expect(lines.some((l) => l.includes("full-text index loaded into memory"))).toBe(true);
    } finally {
      setLogger(saved);
    }
  });

  it("removes orphan chunks (a document row never written) in the background", async () => {
    await writeFile(path.join(dir, "knowledge", "a.md"), "# Alpha\n\nThe alpha rule.\n\nAnother alpha paragraph.\n");
    await startStartup();
    const [doc] = await (await getStore()).listDocuments();
    expect((await (await getStore()).getChunks(doc.id)).length).toBeGreaterThan(0);
    const other = await lancedb.connect(process.env.DATA_DIR!, { readConsistencyInterval: 0 });
    await (await other.openTable("documents")).delete(sqlEq("id", doc.id)); // as a write killed half-way leaves it
    other.close();

    await resetProcessState();
    process.env.KNOWLEDGE_DIR = path.join(dir, "missing");
    process.env.STORE_ORPHAN_GRACE_MS = "1";
    await startStartup();
    const store = await getStore();
    let left = -1;
    for (let i = 0; i < 100 && left !== 0; i++) {
      left = (await store.getChunks(doc.id)).length;
      if (left) await new Promise((r) => setTimeout(r, 100));
    }
    expect(left).toBe(0);
  });
});
