import { endpoint, routeMethods } from "@/server/http/endpoint";
import { testStepOp } from "@/server/http/operations/runs";
import { testStep } from "@/server/services/runs/test-step";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  POST: endpoint(testStepOp, async ({ ctx, params, body }) => {
    const r = await testStep({ ctx, input: { ...body, workflowId: params.id } });
    return Response.json(r, { status: 201 });
  }),
});
