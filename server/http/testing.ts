/**
 * Test helpers for /api/v1: the route files on disk and the methods each really implements
 * (routeMethods' 405 stubs and the catch-all's 404s excluded), so matrix and OpenAPI tests fail
 * when a route is added without its row or operation.
 */
import fs from "node:fs";
import path from "node:path";
import { isMethodStub } from "./endpoint";
import { API_METHODS, type ApiMethod } from "./operation";

export interface DiscoveredRoute {
  method: ApiMethod;
  /** The Next.js route, e.g. `/api/v1/workflows/[id]`. */
  path: string;
  /** The OpenAPI path below /api/v1, e.g. `/workflows/{id}`. */
  openApiPath: string;
  handler: unknown;
}

const API_ROOT = path.resolve("app/api/v1");

export function routeFiles(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === "route.ts") found.push(p);
    }
  };
  walk(API_ROOT);
  return found.sort();
}

export function routePathOf(file: string): string {
  const rel = path.relative(path.resolve("app"), path.dirname(file)).split(path.sep).join("/");
  return `/${rel}`;
}

export function loadRouteModule(routePath: string): Promise<Record<string, unknown>> {
  return import(path.resolve(`app${routePath}/route.ts`));
}

export function toOpenApiPath(routePath: string): string {
  const below = routePath.replace(/^\/api\/v1/, "").replace(/\[(\w+)\]/g, "{$1}");
  return below || "/";
}

export async function discoverApiRoutes(): Promise<DiscoveredRoute[]> {
  const out: DiscoveredRoute[] = [];
  for (const file of routeFiles()) {
    const routePath = routePathOf(file);
    const mod = await loadRouteModule(routePath);
    for (const method of API_METHODS) {
      const handler = mod[method];
      if (typeof handler !== "function" || isMethodStub(handler)) continue;
      out.push({ method, path: routePath, openApiPath: toOpenApiPath(routePath), handler });
    }
  }
  return out;
}
