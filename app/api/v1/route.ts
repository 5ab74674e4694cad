import { endpoint, routeMethods } from "@/server/http/endpoint";
import { apiIndexOp } from "@/server/http/operations/meta";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = routeMethods({
  GET: endpoint(apiIndexOp, async () => ({
    name: "Sluice API",
    openapi: "/api/v1/openapi.json",
    docs: "/api-docs",
  })),
});
