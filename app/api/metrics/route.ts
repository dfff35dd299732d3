import { checkManagementAccess, errorResponse } from "@/lib/auth/admin";
import { metricsResponse } from "@/lib/metrics/http";
import { getStore } from "@/lib/store";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** GET /api/metrics (also /metrics) — Prometheus metrics; the management API's access rule. */
export async function GET(req: Request): Promise<Response> {
  try {
    const denied = checkManagementAccess(req);
    if (denied) throw denied;
    // Not getReadyStore: metrics stay readable while start-up indexing runs.
    return await metricsResponse(getStore);
  } catch (err) {
    return errorResponse(err);
  }
}
