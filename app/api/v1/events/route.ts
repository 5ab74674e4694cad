import { apiRoute, readJsonBody } from "@/server/http/api";
import { emitEvents } from "@/server/services/events/emit-events";

export const dynamic = "force-dynamic";

/** `POST /api/v1/events`: `{ name, data, id? }` or an array of up to 100 → `202 { ids }`. */
export const POST = apiRoute({ minRole: "editor" }, async ({ ctx, req }) => {
  const result = await emitEvents({ ctx, input: await readJsonBody(req) });
  return Response.json(result, { status: 202 });
});
