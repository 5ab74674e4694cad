import "server-only";
import { getDbHandle } from "@/db";
import { scrapeMetrics } from "../observability/metrics-endpoint";
import { requestClient } from "./client-address";

/** `GET /api/metrics` adapter: the caller's token and address → the Prometheus text. */
export function handleMetrics(req: Request): Promise<Response> {
  return scrapeMetrics(
    {
      authorization: req.headers.get("authorization"),
      address: requestClient(req.headers).address,
    },
    getDbHandle,
  );
}
