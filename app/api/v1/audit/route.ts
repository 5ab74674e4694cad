import { auditNdjsonResponse, wantsNdjson } from "@/server/http/audit-ndjson";
import { endpoint, routeMethods } from "@/server/http/endpoint";
import { listAuditOp } from "@/server/http/operations/audit";
import { listAudit } from "@/server/services/audit/list-audit";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  GET: endpoint(listAuditOp, async ({ ctx, req, query }) => {
    const { format, ...filters } = query;
    if (wantsNdjson(req, format)) return auditNdjsonResponse(ctx, filters, req.signal);
    return listAudit({ ctx, input: filters });
  }),
});
