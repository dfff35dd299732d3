/**
 * The event-loop delay metrics: still in /metrics, sampled by a timer slow enough that an idle server sleeps
 * (prom-client's default 10 ms timer woke it 100 times a second).
 */
import perfHooks from "node:perf_hooks";
import { afterEach, expect, it, vi } from "vitest";
import { renderMetrics } from "@/lib/metrics/index";

const METRICS_KEY = Symbol.for("kb-mcp-chat.metrics");

afterEach(() => {
  vi.restoreAllMocks();
  delete (globalThis as Record<symbol, unknown>)[METRICS_KEY];
});

it("samples the event loop's delay at most every 100 ms and still reports its percentiles", async () => {
  // A registry made here, so its default metrics start now and under the spy.
  delete (globalThis as Record<symbol, unknown>)[METRICS_KEY];
  const monitor = vi.spyOn(perfHooks, "monitorEventLoopDelay");
  const { body } = await renderMetrics();
  expect(monitor).toHaveBeenCalledTimes(1);
  expect(monitor.mock.calls[0][0]?.resolution).toBeGreaterThanOrEqual(100);
  expect(body).toMatch(/^kb_nodejs_eventloop_lag_p99_seconds \d/m);
  expect(body).toMatch(/^kb_nodejs_eventloop_lag_max_seconds \d/m);
});
