import { handleMetrics } from "@/server/http/metrics";
import { securedRoute } from "@/server/http/security-headers";

export const dynamic = "force-dynamic";

/** `/api/metrics`: Prometheus text format (docs/operations.md "Metrics"). */
export const GET = securedRoute(handleMetrics);
