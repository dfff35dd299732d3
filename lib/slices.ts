/**
 * Long loops of the main thread, cut into slices with the event loop served in between: an ingest of a big
 * document walks tens of thousands of chunks, and no request should wait behind the whole walk.
 */

/** How long one slice may keep the event loop. */
const SLICE_MS = 10;

/** Lets the event loop run what is waiting (I/O, timers, other requests) before going on. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Calls `each(i)` for i = 0 … count − 1, yielding to the event loop whenever a slice has run for SLICE_MS. */
export async function inSlices(count: number, each: (i: number) => void): Promise<void> {
  let since = performance.now();
  for (let i = 0; i < count; i++) {
    each(i);
    if (performance.now() - since > SLICE_MS) {
      await nextTurn();
      since = performance.now();
    }
  }
}

/** Bytes handled per slice by inByteSlices. */
const SLICE_BYTES = 4 * 1024 * 1024;

/** Calls `each(from, to)` over `length` bytes a few megabytes at a time, yielding to the event loop in between. */
export async function inByteSlices(length: number, each: (from: number, to: number) => void): Promise<void> {
  for (let at = 0; at < length; at += SLICE_BYTES) {
    if (at > 0) await nextTurn();
    each(at, Math.min(length, at + SLICE_BYTES));
  }
}

/** `items.map(fn)`, in slices (see inSlices). */
export async function mapInSlices<T, U>(items: readonly T[], fn: (item: T, i: number) => U): Promise<U[]> {
  const out = new Array<U>(items.length);
  await inSlices(items.length, (i) => (out[i] = fn(items[i], i)));
  return out;
}
