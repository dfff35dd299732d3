/**
 * Scale-out on an object store: two app servers (built Next, through server.mjs like `npm start`) on different ports share one
 * dataset at DATA_DIR=s3://… served by a local S3-compatible server (s3rver, in this process). A document
 * added through one is found through the other, and a delete through the other is seen by the first.
 * LanceDB's object-store client reads the AWS_* variables set here (endpoint, plain HTTP, credentials, region).
 */

import { type ChildProcess, spawn } from "node:child_process";
import { rm } from "node:fs/promises";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type S3rver from "s3rver";
import { connectMcp, mcpUrl, resultText, search } from "./helpers/mcp";
import { s3Env, startS3 } from "./helpers/s3";
import { expect, PORTS, test, WORKER_DATA_DIR } from "./helpers/servers";

const S3_PORT = PORTS.offline + 20;
const APP_PORTS = [PORTS.offline + 21, PORTS.offline + 22] as const;
const S3_DIR = path.resolve(WORKER_DATA_DIR, "s3");
const BUCKET = "kb-e2e";
const S3_ENV = s3Env(S3_PORT);

let s3: S3rver;

const servers: ChildProcess[] = [];
const clients: Client[] = [];

async function waitHealthy(port: number, child: ChildProcess) {
  for (let i = 0; i < 240; i++) {
    if (child.exitCode !== null) throw new Error(`app on ${port} exited with ${child.exitCode}`);
    if (
      await fetch(`http://127.0.0.1:${port}/api/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`app on ${port} did not become ready`);
}

test.beforeAll(async () => {
  test.setTimeout(180_000);
  await rm(S3_DIR, { recursive: true, force: true });
  s3 = await startS3(S3_DIR, S3_PORT, BUCKET);
  const dataDir = `s3://${BUCKET}/replicas-${Date.now()}`;
  for (const port of APP_PORTS) {
    // No knowledge folder: the replicas must not both write it at start-up (s3rver has no conditional writes).
    const child = spawn(process.execPath, ["server.mjs", "-p", String(port), "-H", "127.0.0.1"], {
      env: {
        ...process.env,
        ...S3_ENV,
        DATA_DIR: dataDir,
        KNOWLEDGE_DIR: path.join(S3_DIR, "none"),
        OPENAI_API_KEY: "",
        NEXT_TELEMETRY_DISABLED: "1",
      },
      stdio: ["ignore", "ignore", "inherit"],
    });
    servers.push(child);
    await waitHealthy(port, child); // one after the other: the first creates the tables
  }
});

test.afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  for (const s of servers) s.kill("SIGTERM");
  await s3?.close();
  await rm(S3_DIR, { recursive: true, force: true });
});

test("two replicas on one s3:// dataset: added through one, found through the other; deleted through the other, gone from the first", async () => {
  const [a, b] = APP_PORTS;
  const res = await fetch(`http://127.0.0.1:${a}/api/tokens`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ name: "replica test", scope: "read-write" }),
  });
  expect(res.status).toBe(201);
  const { secret } = await res.json();
  const auth = { Authorization: `Bearer ${secret}` };
  const [onA, onB] = await Promise.all([connectMcp(mcpUrl(a), auth), connectMcp(mcpUrl(b), auth)]);
  clients.push(onA, onB);

  const added = await onA.callTool({
    name: "add_document",
    arguments: { title: "Replica note", content: "# Replica note\n\nThe pangolin rolls into a scaly ball when threatened." },
  });
  expect(added.isError).toBeFalsy();
  const id = (added.structuredContent as { document: { id: string } }).document.id;

  // The token created on A authenticates on B (the registry is in the same dataset).
  await expect
    .poll(async () => (await search(onB, { query: "pangolin scaly ball" })).results[0]?.document.id, { timeout: 10_000 })
    .toBe(id);

  const deleted = await onB.callTool({ name: "delete_document", arguments: { document_id: id } });
  expect(deleted.isError, resultText(deleted)).toBeFalsy();
  await expect
    .poll(async () => (await search(onA, { query: "pangolin scaly ball" })).results.some((r) => r.document.id === id), { timeout: 10_000 })
    .toBe(false);
});
