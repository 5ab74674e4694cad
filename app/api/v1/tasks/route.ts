import { endpoint, routeMethods } from "@/server/http/endpoint";
import { listTasksOp } from "@/server/http/operations/tasks";
import { listTasks } from "@/server/services/tasks/list-tasks";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  GET: endpoint(listTasksOp, ({ ctx, query }) => listTasks({ ctx, input: query })),
});
