/**
 * `npm run eval -- --ablate` must really switch each component off: every row's results differ from the
 * default's somewhere on a real subset (covidqa, 20 papers, 54 questions) through the real pipeline. A
 * tuning that searchKnowledge ignored (as the rerank weights once were) gives the default's results again.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOfflineEmbedder } from "@/lib/embed";
import type { Store } from "@/lib/store";
import { type EvalSet, loadEvalSet, openCachedSet } from "./eval-harness";
import { ABLATIONS, type SearchTuning, searchKnowledge } from "./index";

let dir: string;
let store: Store;
let set: EvalSet;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "ablation-test-"));
  set = await loadEvalSet(path.resolve(import.meta.dirname, "../../fixtures/eval/covidqa-en-subset"));
  // Vectors for the rows that put the vector channel back (the eval does the same).
  ({ store } = await openCachedSet(set, dir, { embedder: createOfflineEmbedder() }));
}, 300_000);

afterAll(async () => {
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Per question, the ids of the top 10 in order under a tuning. */
async function results(tuning: Partial<SearchTuning>): Promise<string[]> {
  const out: string[] = [];
  for (const q of set.questions) {
    const hits = await searchKnowledge(store, { query: q.question, topK: 10 }, tuning);
    out.push(hits.map((h) => h.chunk.id).join(" "));
  }
  return out;
}

describe("eval ablation rows", () => {
  it("each row switches something off: its results differ from the default's", async () => {
    const base = await results({});
    const same: string[] = [];
    for (const [name, tuning] of Object.entries(ABLATIONS)) {
      const rows = await results(tuning);
      if (rows.every((r, i) => r === base[i])) same.push(name);
    }
    expect(same).toEqual([]);
  }, 300_000);
});
