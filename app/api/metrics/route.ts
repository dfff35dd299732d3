import { metricsResponse } from "@/lib/metrics/http";
import { route } from "@/lib/server/route";
import { getStore } from "@/lib/store";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** GET /api/metrics (also /metrics) — Prometheus metrics; admins only (the owner, the admin secret, or an admin account). */
// Not the ready store: metrics stay readable while start-up indexing runs.
export const GET = route({ access: "admin" }, () => metricsResponse(getStore));
