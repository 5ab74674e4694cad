import { livenessResponse } from "@/server/health";
import { securedRoute } from "@/server/http/security-headers";

export const dynamic = "force-dynamic";

/** Liveness probe: unauthenticated, no I/O (docs/operations.md#probes). */
export const GET = securedRoute(() => livenessResponse());
