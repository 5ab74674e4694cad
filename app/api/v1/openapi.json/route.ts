import { endpoint, routeMethods } from "@/server/http/endpoint";
import { openApiDocument } from "@/server/http/openapi";
import { openApiOp } from "@/server/http/operations/meta";

export const dynamic = "force-dynamic";

/** Public: the document describes the API, not any workspace's data. */
export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  GET: endpoint(openApiOp, async () => openApiDocument()),
});
