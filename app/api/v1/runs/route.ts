import { endpoint, routeMethods } from "@/server/http/endpoint";
import { listRunsOp } from "@/server/http/operations/runs";
import { listRuns } from "@/server/services/runs/list-runs";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  GET: endpoint(listRunsOp, ({ ctx, query }) => listRuns({ ctx, input: query })),
});
