/**
 * A real HTTP server (127.0.0.1, random port) in front of the app's own route handlers, for tests
 * whose client must be a separate program (curl, the `sluice` CLI, an MCP client over HTTP): each
 * request is matched to an `app/api/**` route file the way Next.js matches it (static segments
 * before `[param]` before `[...rest]`) and handed the Web `Request`; the `Response` streams back.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { Readable } from "node:stream";

type Handler = (req: Request, ctx: { params: Promise<Record<string, unknown>> }) => unknown;

interface RouteFile {
  /** Path segments of the route, e.g. ["api", "v1", "runs", "[id]"]. */
  segments: string[];
  file: string;
}

function routeFilesUnder(dir: string): string[] {
  const found: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) found.push(...routeFilesUnder(p));
    else if (e.name === "route.ts") found.push(p);
  }
  return found;
}

/** Next's precedence per segment: static 2, `[param]` 1, `[...rest]` 0. */
const rank = (seg: string) => (seg.startsWith("[...") ? 0 : seg.startsWith("[") ? 1 : 2);

function match(route: RouteFile, parts: string[]): Record<string, unknown> | null {
  const params: Record<string, unknown> = {};
  for (let i = 0; i < route.segments.length; i++) {
    const seg = route.segments[i]!;
    if (seg.startsWith("[...")) {
      if (i >= parts.length) return null;
      params[seg.slice(4, -1)] = parts.slice(i);
      return params;
    }
    if (i >= parts.length) return null;
    if (seg.startsWith("[")) params[seg.slice(1, -1)] = parts[i];
    else if (seg !== parts[i]) return null;
  }
  return parts.length === route.segments.length ? params : null;
}

function compareSpecificity(a: RouteFile, b: RouteFile): number {
  for (let i = 0; i < Math.max(a.segments.length, b.segments.length); i++) {
    const d = rank(b.segments[i] ?? "[...]") - rank(a.segments[i] ?? "[...]");
    if (d) return d;
  }
  return 0;
}

export interface RouteServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  close(): Promise<void>;
}

/** Serves every `route.ts` below `app/<under>` (e.g. "api") from this process. */
export async function startRouteServer(under = "api"): Promise<RouteServer> {
  const appDir = path.resolve("app");
  const routes: RouteFile[] = routeFilesUnder(path.join(appDir, under))
    .map((file) => ({
      file,
      segments: path.relative(appDir, path.dirname(file)).split(path.sep),
    }))
    .sort(compareSpecificity);
  const modules = new Map<string, Promise<Record<string, unknown>>>();
  const load = (file: string) => {
    if (!modules.has(file)) modules.set(file, import(file) as Promise<Record<string, unknown>>);
    return modules.get(file)!;
  };

  const server = http.createServer((req, res) => {
    void serve(req, res).catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(`route-server: ${String(e)}`);
    });
  });

  async function serve(req: http.IncomingMessage, res: http.ServerResponse) {
    const url = new URL(req.url ?? "/", origin);
    const parts = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
    let found: { route: RouteFile; params: Record<string, unknown> } | undefined;
    for (const route of routes) {
      const params = match(route, parts);
      if (params) {
        found = { route, params };
        break;
      }
    }
    if (!found) {
      res.writeHead(404, { "content-type": "text/plain" }).end("route-server: no route file");
      return;
    }
    const mod = await load(found.route.file);
    const method = req.method ?? "GET";
    // Next answers HEAD with the GET handler (without the body) when the file has no HEAD.
    const handler = (mod[method] ?? (method === "HEAD" ? mod.GET : undefined)) as
      Handler | undefined;
    if (!handler) {
      res.writeHead(405).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const abort = new AbortController();
    res.on("close", () => abort.abort());
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers))
      if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(", ") : v);
    const request = new Request(url, {
      method,
      headers,
      body: method === "GET" || method === "HEAD" ? undefined : Buffer.concat(chunks),
      signal: abort.signal,
    });
    const response = (await handler(request, {
      params: Promise.resolve(found.params),
    })) as Response;
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (!response.body || method === "HEAD") {
      res.end();
      return;
    }
    const body = Readable.fromWeb(response.body as import("node:stream/web").ReadableStream);
    body.on("error", () => res.destroy());
    body.pipe(res);
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
