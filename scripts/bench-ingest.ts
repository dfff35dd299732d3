/**
 * The scale benches' ingest: a corpus's files into a store as `npm run ingest` does (batch ingest, documents
 * prepared concurrently), topped up with reordered copies of its text files when it has fewer chunks than
 * asked (scripts/bench-topup.ts), with the speed of every 100,000 chunks.
 */
import path from "node:path";
import { addConcurrently, createBatchIngest, readInputFile } from "@/lib/ingest";
import { fileNameOf } from "@/lib/kb/fields";
import type { Store } from "@/lib/store";
import { corpusPasses, reorderedCopy } from "./bench-topup";

/** Ingest speed is reported per this many chunks. */
const SEGMENT_CHUNKS = 100_000;
/** Files whose reordered copies top up a corpus that is too small (text formats only). */
const TEXT_FORMATS = /\.(md|markdown|txt|html?|csv)$/i;

export const mb = (bytes: number) => bytes / 1e6;
export const f1 = (n: number) => n.toFixed(1);

/** CPU seconds of this process since `since` (all threads, Lance's included): on a shared machine wall time says little. */
export function cpuSeconds(since: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1e6;
}

export interface CorpusIngest {
  docs: number;
  chunks: number;
  rawBytes: number;
  failed: number;
  /** Chunks and bytes from reordered copies (the corpus had too few). */
  copiedChunks: number;
  copiedBytes: number;
  seconds: number;
  cpuSeconds: number;
  /** Each 100,000 chunks: MB of raw text, wall and CPU seconds. */
  segments: { chunks: number; mb: number; seconds: number; cpu: number }[];
}

export async function ingestCorpus(store: Store, files: readonly string[], scale: number, kb = "bench"): Promise<CorpusIngest> {
  const batch = createBatchIngest(store);
  const r: CorpusIngest = {
    docs: 0,
    chunks: 0,
    rawBytes: 0,
    failed: 0,
    copiedChunks: 0,
    copiedBytes: 0,
    seconds: 0,
    cpuSeconds: 0,
    segments: [],
  };
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  let lastReport = t0;
  let started = 0;
  let segmentStart = { at: t0, bytes: 0, cpu: 0 };
  await addConcurrently(
    corpusPasses(files),
    async ({ file, pass }) => {
      if (pass > 0 && !TEXT_FORMATS.test(file)) return;
      const read = await readInputFile(file);
      const data = pass === 0 ? read : Buffer.from(reorderedCopy(read.toString("utf8"), pass));
      const n = started++;
      try {
        const { result, failures } = await batch.add({ filename: fileNameOf(`${n}-${path.basename(file)}`), data, kb, origin: "cli" });
        r.failed += failures.length;
        if (result.status !== "unchanged") {
          r.chunks += result.document.chunkCount;
          r.rawBytes += data.byteLength;
          r.docs++;
          if (pass > 0) {
            r.copiedChunks += result.document.chunkCount;
            r.copiedBytes += data.byteLength;
          }
          if (r.chunks >= (r.segments.length + 1) * SEGMENT_CHUNKS) {
            const now = performance.now();
            const cpu = cpuSeconds(cpu0);
            r.segments.push({
              chunks: r.chunks,
              mb: mb(r.rawBytes - segmentStart.bytes),
              seconds: (now - segmentStart.at) / 1000,
              cpu: cpu - segmentStart.cpu,
            });
            segmentStart = { at: now, bytes: r.rawBytes, cpu };
          }
        }
      } catch {
        r.failed++;
      }
      if (performance.now() - lastReport > 10_000) {
        lastReport = performance.now();
        console.log(
          `  … ${r.docs} docs, ${r.chunks} chunks, ${f1(mb(r.rawBytes))} MB in ${f1((lastReport - t0) / 1000)} s (RSS ${Math.round(process.memoryUsage().rss / 1e6)} MB)`,
        );
      }
    },
    { stop: () => r.chunks >= scale },
  );
  r.failed += (await batch.flush()).length;
  r.seconds = (performance.now() - t0) / 1000;
  r.cpuSeconds = cpuSeconds(cpu0);
  return r;
}

/** The ingest's summary lines: speed overall and per 100,000 chunks, how much was real, CPU. */
export function printIngest(r: CorpusIngest, scale: number, loadAverage: number): void {
  if (r.chunks < scale) console.log(`note: the corpus holds only ${r.chunks} chunks, copies included (asked for ${scale})`);
  console.log(
    `ingest    ${r.docs} docs, ${r.chunks} chunks, ${f1(mb(r.rawBytes))} MB raw in ${f1(r.seconds)} s (${r.failed} failed): ` +
      `${mb(r.rawBytes / r.seconds).toFixed(2)} MB/s, ${Math.round(r.chunks / r.seconds)} chunks/s   [target ≥ 2 MB/s]`,
  );
  if (r.copiedChunks > 0)
    console.log(
      `          real: ${r.chunks - r.copiedChunks} chunks, ${f1(mb(r.rawBytes - r.copiedBytes))} MB; the rest are copies of the corpus files ` +
        `with their sections reordered (${r.copiedChunks} chunks, ${f1(mb(r.copiedBytes))} MB)`,
    );
  for (const s of r.segments)
    console.log(
      `          up to ${s.chunks} chunks: ${(s.mb / s.seconds).toFixed(2)} MB/s over the last segment (${f1(s.mb)} MB in ${f1(s.seconds)} s, ` +
        `CPU ${f1(s.cpu)} s)   [target ≥ 1.5 MB/s]`,
    );
  console.log(
    `          CPU ${f1(r.cpuSeconds)} s (${(r.cpuSeconds / r.seconds).toFixed(2)} cores busy on average): ` +
      `${mb(r.rawBytes / r.cpuSeconds).toFixed(2)} MB per CPU-second, ${Math.round(r.chunks / r.cpuSeconds)} chunks per CPU-second; load average ${loadAverage.toFixed(1)}`,
  );
}
