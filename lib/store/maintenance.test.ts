import pino from "pino";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createMaintainer } from "./maintenance";

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe("background maintenance", () => {
  it("folds a burst of writes into one run, and under continuous writes waits three times as long as a run took", async () => {
    const starts: number[] = [];
    const m = createMaintainer(
      async () => {
        starts.push(Date.now());
        await new Promise((r) => setTimeout(r, 1000)); // a run of one second
        return {};
      },
      { delayMs: 100, timeoutMs: 60_000, retryMs: 30_000, logger: pino({ level: "silent" }) },
    );
    const t0 = Date.now();
    for (let i = 0; i < 5; i++) m.schedule();
    await vi.advanceTimersByTimeAsync(100);
    expect(starts.map((t) => t - t0)).toEqual([100]);
    m.schedule(); // written during the run
    await vi.advanceTimersByTimeAsync(1000); // the run ends at 1100
    await vi.advanceTimersByTimeAsync(2999);
    expect(starts).toHaveLength(1); // not 100 ms after it, but 3 × 1 s
    await vi.advanceTimersByTimeAsync(1);
    expect(starts.map((t) => t - t0)).toEqual([100, 4100]);
    await vi.advanceTimersByTimeAsync(1000);
    m.schedule(); // a write after the store was quiet for a while still waits the spacing, measured from now
    await vi.advanceTimersByTimeAsync(2999);
    expect(starts).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(starts).toHaveLength(3);
    m.stop();
  });
});
