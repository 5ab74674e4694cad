import { endpoint, routeMethods } from "@/server/http/endpoint";
import { completeTaskOp } from "@/server/http/operations/tasks";
import { completeTask } from "@/server/services/tasks/complete-task";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  POST: endpoint(completeTaskOp, ({ ctx, params, body }) =>
    completeTask({ ctx, input: { ...body, taskId: params.id }, via: "api" }),
  ),
});
