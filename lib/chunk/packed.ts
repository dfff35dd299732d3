/**
 * Indexed chunks as they cross from the parse worker to the main thread: their strings UTF-8 encoded one
 * after another into one transferable buffer and their numbers into a typed array. A structured clone of
 * 100,000 chunk objects is read back on the receiving thread in one go (seconds for a 45 MB text); a packed
 * set moves without a copy and is unpacked in slices between which the server answers requests.
 */
import { inSlices } from "@/lib/slices";
import { embeddingText } from "./index";
import type { IndexedChunk } from "./indexed";

export interface PackedChunks {
  count: number;
  /** Per chunk: its text, its index text, its lead ("" for none), then its heading path's parts, UTF-8. */
  bytes: Uint8Array;
  /** Where each of those strings ends in `bytes`. */
  ends: Uint32Array;
  /** Per chunk, NUMBERS values: index, start, end, page (−1: none), heading path length. */
  numbers: Int32Array;
}

const NUMBERS = 5;

export function packChunks(chunks: readonly IndexedChunk[]): PackedChunks {
  const numbers = new Int32Array(chunks.length * NUMBERS);
  const strings: string[] = [];
  for (const [i, c] of chunks.entries()) {
    numbers.set([c.index, c.start, c.end, c.page ?? -1, c.headingPath.length], i * NUMBERS);
    strings.push(c.text, c.indexText, c.lead ?? "", ...c.headingPath);
  }
  let size = 0;
  for (const s of strings) size += Buffer.byteLength(s);
  const bytes = new Uint8Array(size);
  const ends = new Uint32Array(strings.length);
  const encoder = new TextEncoder();
  let at = 0;
  for (const [k, s] of strings.entries()) {
    at += encoder.encodeInto(s, bytes.subarray(at)).written;
    ends[k] = at;
  }
  return { count: chunks.length, bytes, ends, numbers };
}

/** What to transfer (not copy) with a packed set. */
export function packedBuffers(p: PackedChunks): ArrayBuffer[] {
  return [p.bytes.buffer as ArrayBuffer, p.ends.buffer as ArrayBuffer, p.numbers.buffer as ArrayBuffer];
}

/**
 * The chunks of a packed set, with `text`, `indexText` and `embedText` decoded whenever they are read, never
 * kept: the main thread holds a big document's chunks as numbers and one buffer, not as 200 MB of strings
 * that every full garbage collection would walk; their rows are encoded a slice at a time when written.
 */
export async function unpackChunks(p: PackedChunks): Promise<IndexedChunk[]> {
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  const string = (k: number) => decoder.decode(p.bytes.subarray(k === 0 ? 0 : p.ends[k - 1], p.ends[k]));
  const chunks = new Array<IndexedChunk>(p.count);
  let next = 0;
  await inSlices(p.count, (i) => {
    const [index, start, end, page, headings] = p.numbers.subarray(i * NUMBERS, (i + 1) * NUMBERS);
    const at = next;
    next += 3 + headings;
    const headingPath = Array.from({ length: headings }, (_, h) => string(at + 3 + h));
    const lead = string(at + 2);
    const chunk = readLazily({ index, headingPath, start, end } as Omit<IndexedChunk, "text" | "indexText" | "embedText">, {
      text: () => string(at),
      indexText: () => string(at + 1),
      embedText: () => embeddingText({ headingPath, lead, text: string(at) }),
    });
    if (page >= 0) chunk.page = page;
    if (lead) chunk.lead = lead;
    chunks[i] = chunk;
  });
  return chunks;
}

/** `target` with a property per getter, computed each time it is read (enumerable: spread and compared like data). */
export function readLazily<T extends object, G extends Record<string, () => unknown>>(
  target: T,
  getters: G,
): T & { [K in keyof G]: ReturnType<G[K]> } {
  for (const [key, get] of Object.entries(getters)) Object.defineProperty(target, key, { get, enumerable: true, configurable: true });
  return target as T & { [K in keyof G]: ReturnType<G[K]> };
}
