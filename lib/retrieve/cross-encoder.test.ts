/**
 * The cross-encoder client against a local fake reranker speaking the common /rerank wire format
 * (Jina/Cohere `{ results: [{ index, relevance_score }] }` and TEI `[{ index, score }]`).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type CrossEncoder, crossEncoderFromEnv, crossEncoderRerank } from "./cross-encoder";

type Mode = "jina" | "tei" | "error" | "slow" | "garbage";
let mode: Mode = "jina";
const requests: { auth?: string; body: { model: string; query: string; documents: string[] } }[] = [];

// Scores each document by how many times it contains the word "gold".
const server = http.createServer((req, res) => {
  let raw = "";
  req.on("data", (c) => (raw += c));
  req.on("end", () => {
    if (req.method !== "POST" || req.url !== "/v1/rerank") {
      res.writeHead(404).end();
      return;
    }
    const body = JSON.parse(raw);
    requests.push({ auth: req.headers.authorization, body });
    const scores = (body.documents as string[]).map((d, index) => ({ index, s: d.split("gold").length - 1 }));
    if (mode === "error") res.writeHead(500).end("boom");
    else if (mode === "garbage") res.writeHead(200, { "content-type": "application/json" }).end('{"nope":1}');
    else if (mode === "slow") setTimeout(() => res.writeHead(200).end("{}"), 3000);
    else if (mode === "tei")
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(scores.map(({ index, s }) => ({ index, score: s }))));
    else {
      const results = scores.map(({ index, s }) => ({ index, relevance_score: s })).sort((a, b) => b.relevance_score - a.relevance_score);
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ results }));
    }
  });
});
let ce: CrossEncoder;

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  ce = crossEncoderFromEnv({
    RERANK_BASE_URL: `http://127.0.0.1:${port}/v1/`,
    RERANK_MODEL: "fake-reranker",
    RERANK_TOP_N: "3",
    RERANK_TIMEOUT_MS: "1500",
    RERANK_API_KEY: "k",
  })!;
});
afterAll(
  () =>
    new Promise<void>((r) => {
      server.close(() => r());
      server.closeAllConnections();
    }),
);

const items = [
  { id: "a", score: 4, text: "nothing" },
  { id: "b", score: 3, text: "gold" },
  { id: "c", score: 2, text: "gold gold" },
  { id: "d", score: 1, text: "gold gold gold (beyond top N)" },
];
const ids = (xs: { id: string }[]) => xs.map((x) => x.id);

describe("cross-encoder reranking", () => {
  it("is configured only when both RERANK_BASE_URL and RERANK_MODEL are set", () => {
    expect(crossEncoderFromEnv({})).toBeNull();
    expect(crossEncoderFromEnv({ RERANK_BASE_URL: "http://x" })).toBeNull();
    expect(crossEncoderFromEnv({ RERANK_BASE_URL: "http://x/", RERANK_MODEL: "m" })).toMatchObject({
      baseUrl: "http://x",
      topN: 20,
      timeoutMs: 3000,
    });
    expect(ce).toMatchObject({ model: "fake-reranker", topN: 3, timeoutMs: 1500 });
  });

  it("reorders the top N by the Jina/Cohere response and keeps the rest behind", async () => {
    mode = "jina";
    const out = await crossEncoderRerank(ce, "where is the gold", items, (i) => i.text);
    expect(ids(out)).toEqual(["c", "b", "a", "d"]);
    expect(out[0].score).toBe(2);
    expect(out[3].score).toBeLessThan(out[2].score);
    const last = requests.at(-1)!;
    expect(last.body).toMatchObject({ model: "fake-reranker", query: "where is the gold", documents: ["nothing", "gold", "gold gold"] });
    expect(last.auth).toBe("Bearer k");
  });

  it("reads the TEI response shape too", async () => {
    mode = "tei";
    expect(ids(await crossEncoderRerank(ce, "q", items, (i) => i.text))).toEqual(["c", "b", "a", "d"]);
  });

  it("falls back to the lexical order on an error, a bad body or a timeout", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    for (const m of ["error", "garbage", "slow"] as const) {
      mode = m;
      expect(ids(await crossEncoderRerank(ce, "q", items, (i) => i.text))).toEqual(["a", "b", "c", "d"]);
    }
    expect(warn).toHaveBeenCalledTimes(3);
    warn.mockRestore();
  });
});
