import { log } from "@/lib/log";
import { renderMetrics } from "./index";

/**
 * The /metrics response: store gauges (rows, versions, data-dir bytes) read now, then every metric in the
 * Prometheus text format. A store that cannot be read leaves its gauges as they were; the rest is served.
 */
export async function metricsResponse(getStore: () => Promise<{ stats(): Promise<unknown> }>): Promise<Response> {
  try {
    await (await getStore()).stats();
  } catch (err) {
    log("metrics").warn({ err: err instanceof Error ? err.message : String(err) }, "store statistics unavailable");
  }
  const { body, contentType } = await renderMetrics();
  return new Response(body, { headers: { "Content-Type": contentType, "Cache-Control": "no-store" } });
}
