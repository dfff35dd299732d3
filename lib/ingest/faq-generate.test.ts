/**
 * Model-generated FAQ pairs against the fake OpenAI-compatible server (real /v1/chat/completions wire
 * format) on a real LanceDB store: grounded pairs kept (pending review, pointing at their chunk), an
 * unsupported one dropped, no model call on re-ingest of the same content, and cancelling.
 */

import { mkdtemp, rm } from "node:fs/promises";
import type http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { createOpenAI } from "@ai-sdk/openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UNSUPPORTED_ANSWER } from "@/e2e/fixtures/fake-faq";
import { createFakeOpenAI, type RecordedRequest } from "@/e2e/fixtures/fake-openai";
import { createOfflineEmbedder } from "@/lib/embed";
import {
  cancelGeneration,
  generateDocumentFaqs,
  generationDone,
  generationProgress,
  isGrounded,
  parsePairs,
  startGeneration,
} from "@/lib/faq/generate";
import { getFaqStore } from "@/lib/faq/store";
import { ingestDocument } from "@/lib/ingest";
import { openStore, type Store } from "@/lib/store";

const enc = new TextEncoder();
let dir: string;
let store: Store;
let fake: http.Server;
let base: string;

const DOC = `# Parking

## Permits

Parking permits cost 30 euros per month and are issued by Facilities. Apply in the Facilities portal.

## Bicycles

The bicycle cellar opens at 6 a.m. and closes at 10 p.m. on working days.
`;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "faq-gen-"));
  store = await openStore({ uri: dir, embedder: createOfflineEmbedder(128) });
  fake = createFakeOpenAI();
  await new Promise<void>((r) => fake.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((r) => fake?.close(r));
  await store?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const model = () => createOpenAI({ apiKey: "test-key", baseURL: `${base}/v1` }).chat("fake-model");
const requests = async () => (await (await fetch(`${base}/requests`)).json()) as RecordedRequest[];
const reset = () => fetch(`${base}/reset`, { method: "POST" });

describe("grounding", () => {
  it("keeps quoted or closely paraphrased answers and drops unsupported ones", () => {
    const section = "Parking permits cost 30 euros per month and are issued by Facilities.";
    expect(isGrounded("Permits cost 30 euros a month.", section)).toBe(true);
    expect(isGrounded(UNSUPPORTED_ANSWER, section)).toBe(false);
    expect(isGrounded("停车证每月30欧元。", "停车证每月30欧元，由行政部发放。")).toBe(true);
    expect(parsePairs('```json\n{"pairs":[{"question":"Q?","answer":"A."},{"question":1}]}\n```')).toEqual([
      { question: "Q?", answer: "A." },
    ]);
    expect(parsePairs("no json")).toEqual([]);
  });
});

describe("generation with the fake model", () => {
  it("generates grounded pairs, drops the unsupported one, and is skipped on re-ingest of the same content", async () => {
    const { document } = await ingestDocument(store, { filename: "parking.md", data: enc.encode(DOC), kb: "default" });
    const chunks = await store.getChunks(document.id);
    await reset();
    const first = await generateDocumentFaqs(store, document, chunks, { model: model(), modelId: "fake-model", pairs: 3 });
    expect(first).toMatchObject({
      status: "done",
      total: chunks.length,
      done: chunks.length,
      cached: 0,
      kept: chunks.length,
      dropped: chunks.length,
    });
    expect((await requests()).length).toBe(chunks.length);

    const faqs = await (await getFaqStore(store)).list({ documentId: document.id, origin: "generated" });
    expect(faqs.length).toBe(chunks.length);
    for (const f of faqs) {
      expect(f).toMatchObject({ status: "pending", source: { documentId: document.id, label: "model" } });
      const chunk = chunks.find((c) => c.id === f.source.chunkId)!;
      expect(chunk.text).toContain(f.answer);
      expect(f.answer).not.toBe(UNSUPPORTED_ANSWER);
    }
    expect(faqs.map((f) => f.answer)).toContain("Parking permits cost 30 euros per month and are issued by Facilities.");
    // Pending pairs are not served until accepted.
    expect(await (await getFaqStore(store)).search("What does the document say about Parking permits cost 30?", { limit: 3 })).toEqual([]);

    // Same content again (another file name, so ingest does not skip it): every section comes from the cache.
    await reset();
    const again = await ingestDocument(store, { filename: "parking-copy.md", data: enc.encode(`${DOC}\n`), kb: "other" });
    const second = await generateDocumentFaqs(store, again.document, await store.getChunks(again.document.id), {
      model: model(),
      modelId: "fake-model",
      pairs: 3,
    });
    expect(second).toMatchObject({ status: "done", cached: chunks.length, kept: chunks.length });
    expect(await requests()).toEqual([]);
  });

  it("runs in the background with progress and can be cancelled", async () => {
    const slow = Array.from({ length: 6 }, (_, i) => `## Part ${i}\n\nSLOW section ${i} says the archive room ${i} opens at nine.`).join(
      "\n\n",
    );
    const { document } = await ingestDocument(store, { filename: "slow.md", data: enc.encode(`# Slow\n\n${slow}`), kb: "default" });
    const chunks = await store.getChunks(document.id);
    expect(chunks.length).toBeGreaterThan(2);
    await reset();
    const started = startGeneration(store, document, chunks, { model: model(), modelId: "fake-model-slow", pairs: 2 });
    expect(started).toMatchObject({ status: "running", done: 0, total: chunks.length });
    // Wait until the first model call arrived, then cancel.
    for (let i = 0; i < 100 && (await requests()).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(cancelGeneration(document.id)).toBe(true);
    const end = await generationDone(document.id)!;
    expect(end.status).toBe("cancelled");
    expect(end.done).toBeLessThan(chunks.length);
    expect(generationProgress(document.id)?.status).toBe("cancelled");
    expect((await requests()).length).toBeLessThan(chunks.length);
    expect(await (await getFaqStore(store)).list({ documentId: document.id, origin: "generated" })).toEqual([]);
  });
});
