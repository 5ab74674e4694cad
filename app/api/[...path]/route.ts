import { notFoundMethods } from "@/server/http/endpoint";

export const dynamic = "force-dynamic";

/**
 * Any other /api path: a JSON 404 with the API security headers. proxy.ts skips /api (see
 * server/http/security-headers.ts), so without this Next's HTML 404 would go out with none.
 */
export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = notFoundMethods();
