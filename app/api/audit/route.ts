import { z } from "zod";
import { auditCsv, getAuditLog } from "@/lib/audit/log";
import { AUDIT_ACTIONS } from "@/lib/audit/types";
import { kbNameSchema } from "@/lib/kb/names";
import { route } from "@/lib/server/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const filterSchema = z.strictObject({
  actor: z.string().max(254).optional(),
  action: z.enum(AUDIT_ACTIONS, { error: "unknown action" }).optional(),
  kb: kbNameSchema.optional(),
  since: z.iso.datetime({ error: "since must be an ISO date-time" }).optional(),
  until: z.iso.datetime({ error: "until must be an ISO date-time" }).optional(),
  limit: z.coerce.number().int().min(1).max(5000).optional(),
  format: z.enum(["json", "csv"]).optional(),
});

/** GET /api/audit?actor=&action=&kb=&since=&until=&limit=&format=csv — the audit log, newest first (admins only). */
export const GET = route({ access: "admin" }, async ({ req, store }) => {
  const raw = Object.fromEntries(new URL(req.url).searchParams);
  const { format, ...filter } = filterSchema.parse(Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== "")));
  const events = await (await getAuditLog(await store())).list(filter);
  if (format !== "csv") return { events };
  return new Response(auditCsv(events), {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="audit-log.csv"`,
      "Cache-Control": "no-store",
    },
  });
});
