import { endpoint, routeMethods } from "@/server/http/endpoint";
import { getTaskOp } from "@/server/http/operations/tasks";
import { getTask } from "@/server/services/tasks/get-task";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  GET: endpoint(getTaskOp, ({ ctx, params }) => getTask({ ctx, input: { taskId: params.id } })),
});
