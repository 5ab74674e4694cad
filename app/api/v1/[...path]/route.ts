import { notFoundMethods } from "@/server/http/endpoint";

export const dynamic = "force-dynamic";

/** Any /api/v1 path no route handles: the JSON 404 envelope, never Next's HTML page. */
export const { GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS } = notFoundMethods();
