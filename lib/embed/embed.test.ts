import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chunkText, embeddingText } from "@/lib/chunk";
import { AppError } from "@/lib/types";
import { createOfflineEmbedder, type Embedder, ensureDimension, getEmbedder, isOfflineEmbedder, makesVectors } from "./index";
import { createOpenAIEmbedder } from "./openai";

const repoRoot = path.resolve(import.meta.dirname, "../..");
const evalDir = path.resolve(repoRoot, "fixtures/eval");

const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0);

describe("offline embedder", () => {
  const embedder = createOfflineEmbedder();

  it("is deterministic and named after its dimension", async () => {
    const texts = ["员工先填写报销申请单", "Annual leave is 20 days."];
    const [a, b] = [await embedder.embed(texts), await createOfflineEmbedder().embed(texts)];
    expect(a).toEqual(b);
    expect(embedder.name).toBe(`offline-hash-v1-${embedder.dimension}`);
    expect(createOfflineEmbedder(256).name).toBe("offline-hash-v1-256");
    expect(a[0]).toHaveLength(embedder.dimension);
  });

  it("returns unit vectors, also for texts without words", async () => {
    for (const v of await embedder.embed(["Sick leave needs a note.", "病假", "---", "？！", ""])) {
      expect(dot(v, v)).toBeCloseTo(1, 9);
    }
  });

  it("maps identical texts to identical vectors and different texts to different ones", async () => {
    const [a, b, c] = await embedder.embed(["remote work", "remote work", "expense report"]);
    expect(dot(a, b)).toBeCloseTo(1, 9);
    expect(dot(a, c)).toBeLessThan(0.5);
  });

  it("reports progress and honours abort", async () => {
    const seen: number[] = [];
    await embedder.embed(["a", "b", "c"], { onProgress: (done, total) => seen.push(done / total) });
    expect(seen).toEqual([1 / 3, 2 / 3, 1]);
    const ac = new AbortController();
    ac.abort();
    await expect(embedder.embed(["a"], { signal: ac.signal })).rejects.toThrow(/abort/i);
  });

  it("puts questions about the sample knowledge closest to the chunk that answers them", async () => {
    const cases: [string, string, string][] = [
      ["How many days of annual leave do I get?", "employee-handbook.md", "Annual leave"],
      ["When do I need a doctor's note for sick leave?", "employee-handbook.md", "Sick leave"],
      ["病假需要什么证明？", "员工手册.md", "病假"],
      ["报销款多久到账？", "员工手册.md", "报销步骤"],
      ["How long are deleted notes kept in the trash?", "product-faq.md", "What happens to deleted notes?"],
      ["Which identity providers does SSO support?", "product-faq.md", "Which identity providers work with SSO?"],
    ];
    const files = ["employee-handbook.md", "员工手册.md", "product-faq.md"];
    const chunks = files.flatMap((file) =>
      chunkText(fs.readFileSync(path.join(repoRoot, "knowledge", file), "utf8")).map((c) => ({ file, c })),
    );
    const vectors = await embedder.embed(chunks.map(({ c }) => embeddingText(c)));
    for (const [question, file, heading] of cases) {
      const [q] = await embedder.embed([question]);
      const best = chunks[vectors.map((v) => dot(q, v)).reduce((bi, s, i, all) => (s > all[bi] ? i : bi), 0)];
      expect({ question, file: best.file, heading: best.c.headingPath.at(-1) }).toEqual({ question, file, heading });
    }
  });

  for (const set of ["cmrc2018-zh-subset", "squad1.1-en-subset"]) {
    it(`ranks the answering passage above an unrelated one (${set})`, async () => {
      const read = (f: string) =>
        fs
          .readFileSync(path.join(evalDir, set, f), "utf8")
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l));
      const corpus = new Map<string, { title: string; text: string }>(read("corpus.jsonl").map((p) => [p.id, p]));
      const questions = read("questions.jsonl").slice(0, 60) as { question: string; gold_ids: string[] }[];
      let wins = 0;
      for (let i = 0; i < questions.length; i++) {
        const gold = corpus.get(questions[i].gold_ids[0])!;
        const other = corpus.get(questions[(i + 7) % questions.length].gold_ids[0])!;
        const [q, g, o] = await embedder.embed([questions[i].question, `${gold.title}\n${gold.text}`, `${other.title}\n${other.text}`]);
        if (dot(q, g) > dot(q, o)) wins++;
      }
      expect(wins / questions.length).toBeGreaterThanOrEqual(0.95);
    });
  }
});

/** A local server speaking OpenAI's /v1/embeddings wire format, with 4-dimensional vectors derived from the text. */
function fakeVector(text: string, dimension = 4): number[] {
  return Array.from({ length: dimension }, (_, i) => ((text.length * (i + 3)) % 17) / 17 + i);
}

describe("OpenAI-compatible embedder", () => {
  const requests: { auth?: string; body: { model: string; input: string[]; dimensions?: number } }[] = [];
  let server: http.Server;
  let baseURL: string;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let raw = "";
      req.on("data", (d) => (raw += d));
      req.on("end", () => {
        const send = (status: number, body: unknown) => {
          res.writeHead(status, { "content-type": "application/json" });
          res.end(JSON.stringify(body));
        };
        if (req.method !== "POST" || req.url !== "/v1/embeddings") return send(404, { error: { message: "not found" } });
        const body = JSON.parse(raw);
        requests.push({ auth: req.headers.authorization, body });
        if (req.headers.authorization !== "Bearer good-key") {
          return send(401, {
            error: { message: "Incorrect API key provided.", type: "invalid_request_error", param: null, code: "invalid_api_key" },
          });
        }
        const dim = body.model === "wrong-size" ? 3 : (body.dimensions ?? 4);
        send(200, {
          object: "list",
          data: body.input.map((text: string, index: number) => ({ object: "embedding", index, embedding: fakeVector(text, dim) })),
          model: body.model,
          usage: { prompt_tokens: body.input.length, total_tokens: body.input.length },
        });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const make = (over: Partial<Parameters<typeof createOpenAIEmbedder>[0]> = {}): Embedder =>
    createOpenAIEmbedder({ model: "test-embed", baseURL, apiKey: "good-key", batchSize: 32, ...over });

  it("batches requests, keeps order, reports progress per batch and learns the dimension", async () => {
    requests.length = 0;
    const embedder = make();
    expect(embedder.name).toBe("openai:test-embed");
    expect(embedder.dimension).toBe(0);
    const texts = Array.from({ length: 70 }, (_, i) => `batch text number ${i} ${"x".repeat(i)}`);
    const progress: [number, number][] = [];
    const vectors = await embedder.embed(texts, { onProgress: (d, t) => progress.push([d, t]) });
    expect(requests.map((r) => r.body.input.length)).toEqual([32, 32, 6]);
    expect(requests.every((r) => r.body.model === "test-embed" && r.auth === "Bearer good-key")).toBe(true);
    expect(requests[0].body.dimensions).toBeUndefined();
    expect(vectors).toEqual(texts.map((t) => fakeVector(t)));
    expect(progress).toEqual([
      [32, 70],
      [64, 70],
      [70, 70],
    ]);
    expect(embedder.dimension).toBe(4);
  });

  it("never sends the same text twice in a process", async () => {
    requests.length = 0;
    const texts = ["cache me", "cache me too", "cache me"];
    const first = await make().embed(texts);
    expect(requests).toHaveLength(1);
    expect(requests[0].body.input).toEqual(["cache me", "cache me too"]);
    const progress: number[] = [];
    const second = await make().embed(texts, { onProgress: (d) => progress.push(d) });
    expect(requests).toHaveLength(1);
    expect(second).toEqual(first);
    expect(progress).toEqual([3]);
    await make().embed(["cache me", "something new"]);
    expect(requests[1].body.input).toEqual(["something new"]);
  });

  it("sends a requested dimension and rejects vectors of another size", async () => {
    requests.length = 0;
    const embedder = make({ dimension: 6 });
    expect(embedder.dimension).toBe(6);
    const [v] = await embedder.embed(["six please"]);
    expect(v).toHaveLength(6);
    expect(requests[0].body.dimensions).toBe(6);
    const wrong = make({ model: "wrong-size", dimension: 4 });
    await expect(wrong.embed(["size?"])).rejects.toMatchObject({ code: "embedder_mismatch" });
  });

  it("knows OpenAI's own models' dimensions and probes others", async () => {
    expect(make({ model: "text-embedding-3-small" }).dimension).toBe(1536);
    expect(await ensureDimension(make({ model: "probe-model" }))).toBe(4);
  });

  it("fails with a clear error when the server rejects the key", async () => {
    const err = await make({ apiKey: "bad-key" })
      .embed(["secret"])
      .catch((e) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err.code).toBe("unauthorized");
    expect(err.message).toMatch(/rejected the API key \(HTTP 401\)/);
    expect(err.message).toMatch(/EMBEDDING_API_KEY/);
  });

  it("stops before sending when aborted", async () => {
    requests.length = 0;
    const ac = new AbortController();
    ac.abort();
    await expect(make().embed(["never sent"], { signal: ac.signal })).rejects.toThrow(/abort/i);
    expect(requests).toHaveLength(0);
  });
});

describe("getEmbedder", () => {
  const base = {
    provider: "offline",
    chosen: true,
    model: "m",
    baseURL: undefined,
    apiKey: undefined,
    batchSize: 32,
    dimension: 512,
    requestDimension: false,
  };

  it("returns no embedder, the offline hashing one or an OpenAI-compatible one, and refuses another provider", () => {
    expect(getEmbedder(base).name).toBe("offline-hash-v1-512");
    const none = getEmbedder({ ...base, provider: "none" });
    expect([none.name, none.dimension, makesVectors(none), isOfflineEmbedder(none)]).toEqual(["none", 0, false, true]);
    expect(() => getEmbedder({ ...base, provider: "anything" })).toThrow(/EMBEDDING_PROVIDER must be none, offline or openai/);
    const openai = getEmbedder({ ...base, provider: "openai", model: "text-embedding-3-large", apiKey: "k" });
    expect(openai.name).toBe("openai:text-embedding-3-large");
    expect(openai.dimension).toBe(3072);
    expect(getEmbedder({ ...base, provider: "openai", model: "x", requestDimension: true, apiKey: "k" }).dimension).toBe(512);
  });
});
