/** GET /metrics: the conventional Prometheus path, same handler and access rule as /api/metrics. */
export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export { GET } from "../api/metrics/route";
