import { endpoint, routeMethods } from "@/server/http/endpoint";
import { getMeOp } from "@/server/http/operations/meta";
import { getMe } from "@/server/services/me/get-me";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  GET: endpoint(getMeOp, ({ ctx }) => getMe({ ctx })),
});
