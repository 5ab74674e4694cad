import { endpoint, routeMethods } from "@/server/http/endpoint";
import { failTaskOp } from "@/server/http/operations/tasks";
import { failTask } from "@/server/services/tasks/fail-task";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  POST: endpoint(failTaskOp, ({ ctx, params, body }) =>
    failTask({ ctx, input: { ...body, taskId: params.id }, via: "api" }),
  ),
});
