import "server-only";
import type { DbHandle } from "@/db";
import { createLogger } from "@/lib/log";
import { observabilityConfig } from "./config";
import { decideMetricsAccess } from "./metrics-access";
import { metrics } from "./registry";
import { refreshDbGauges } from "./scrape";

const log = createLogger({ component: "metrics" });

/**
 * One scrape: checks access, refreshes the database gauges, renders the registry in the
 * Prometheus text format. A database that cannot be read leaves its gauges at their last values
 * (and is logged): the process's own counters are still worth answering.
 */
export async function scrapeMetrics(
  request: { authorization: string | null; address: string | null },
  database: () => Promise<DbHandle>,
): Promise<Response> {
  const decision = decideMetricsAccess(observabilityConfig().metrics, request);
  if (!decision.ok)
    return Response.json(
      { error: { code: decision.code, message: decision.message } },
      {
        status: decision.status,
        headers: decision.status === 401 ? { "WWW-Authenticate": 'Bearer realm="metrics"' } : {},
      },
    );
  const m = metrics();
  try {
    await refreshDbGauges(await database());
  } catch (e) {
    log.warn("metrics: database gauges could not be read", { err: e });
  }
  return new Response(await m.registry.metrics(), {
    status: 200,
    headers: { "Content-Type": m.registry.contentType },
  });
}
