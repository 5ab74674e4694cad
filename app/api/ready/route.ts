import { processReadiness, readinessResponse } from "@/server/health";
import { securedRoute } from "@/server/http/security-headers";

export const dynamic = "force-dynamic";

/** Readiness probe: unauthenticated, cached for a second, 503 naming what failed (docs/operations.md#probes). */
export const GET = securedRoute(async () => readinessResponse(await processReadiness()));
