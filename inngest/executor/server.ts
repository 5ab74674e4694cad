/**
 * The executor's HTTP surface, as a fetch-style handler (`Request` → `Response`) so tests can call
 * it in-process (e.g. as the SDK client's `fetch`) and `listen()` can serve it with node:http.
 * Routes live at the origin root because the SDK drops base-URL paths (protocol §3.2):
 *
 *   POST /e/:key            event API → { ids, status: 200 }
 *   POST /fn/register       out-of-band sync from the SDK (Bearer signing key when configured)
 *   GET  /health
 *   GET  /admin/functions   GET /admin/runs?status=&functionId=&eventId=&limit=&before=
 *   GET  /admin/runs/:id    POST /admin/runs/:id/cancel   POST /admin/sync   GET /admin/events?name=
 *   POST /v1/checkpoint/:runId/async   steps the SDK ran inline (checkpoint.ts) → 200 | 409 stale
 */
import http from "node:http";
import type { AdminApi } from "./admin";
import { parseCheckpoint, saveCheckpoint } from "./checkpoint";
import { inTx, type ExecutorContext } from "./context";
import { EventValidationError, ingestEvents } from "./events";
import { storeApp } from "./registry";
import { readBodyCapped } from "../../lib/server-only/read-body";
import { safeEqual } from "../../lib/server-only/safe-equal";
import { checkBearer } from "./signing";
import type { ExecutorExecutionStatus } from "../../db/schema/executor";

const MAX_BODY_BYTES = 10 * 1024 * 1024;

export type FetchHandler = (req: Request) => Promise<Response>;

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });

export function createHttpHandler(
  ex: ExecutorContext,
  admin: AdminApi,
  ready: () => Promise<void>,
): FetchHandler {
  const authorized = (req: Request) =>
    !ex.opts.signingKeys.length ||
    checkBearer(req.headers.get("authorization"), ex.opts.signingKeys);

  return async (req) => {
    const url = new URL(req.url);
    const path = url.pathname.replace(/\/+$/, "") || "/";
    try {
      if (path === "/health" && req.method === "GET")
        return json(200, { ok: true, instanceId: ex.instanceId });

      const eventRoute = path.match(/^\/e\/([^/]+)$/);
      if (eventRoute) {
        if (req.method !== "POST") return json(405, { error: "use POST", status: 405 });
        const key = decodeURIComponent(eventRoute[1]!);
        if (ex.opts.eventKey && !safeEqual(key, ex.opts.eventKey)) {
          return json(401, { error: "event key not found", status: 401 });
        }
        const body = await readJson(req);
        const list = Array.isArray(body) ? body : [body];
        await ready();
        const ids = await inTx(ex, (c) =>
          ingestEvents(c, list, { seed: req.headers.get("x-inngest-event-id-seed") }),
        );
        return json(200, { ids, status: 200 });
      }

      if (path === "/fn/register") {
        if (req.method !== "POST") return json(405, { error: "use POST" });
        if (!authorized(req))
          return json(401, { error: "unauthorized: the signing key does not match" });
        const body = (await readJson(req)) as {
          url?: string;
          appName?: string;
          functions?: Array<Record<string, unknown>>;
          sdk?: string;
          framework?: string;
        };
        if (!body?.url || !body.appName || !Array.isArray(body.functions)) {
          return json(400, { error: "expected { url, appName, functions }" });
        }
        await ready();
        const result = await storeApp(ex, {
          appId: body.appName,
          url: body.url,
          sdk: body.sdk,
          framework: body.framework,
          functions: body.functions,
        });
        return json(200, { ok: true, modified: true, functions: result.functions });
      }

      if (path === "/admin" || path.startsWith("/admin/")) {
        if (!authorized(req))
          return json(401, { error: "unauthorized: send Authorization: Bearer <signing key>" });
        await ready();
        return await adminRoute(admin, req.method, path, url.searchParams);
      }

      const checkpointRoute = path.match(/^\/v1\/checkpoint\/([^/]+)\/async$/);
      if (checkpointRoute) {
        if (req.method !== "POST") return json(405, { error: "use POST" });
        // The SDK's API calls carry the hashed signing key, like /fn/register.
        if (!authorized(req))
          return json(401, { error: "unauthorized: the signing key does not match" });
        const parsed = parseCheckpoint(
          decodeURIComponent(checkpointRoute[1]!),
          await readJson(req),
        );
        if (typeof parsed === "string") return json(400, { error: parsed });
        await ready();
        const res = await saveCheckpoint(ex, parsed);
        if (res.status !== 200) {
          ex.log.debug("checkpoint refused", { runId: parsed.runId, ...res });
          return json(res.status, { error: res.error });
        }
        return json(200, { ok: true, saved: res.saved });
      }

      if (path.startsWith("/v1/checkpoint") || path.startsWith("/v0/runs")) {
        return json(501, {
          error:
            "only /v1/checkpoint/:runId/async is supported (no durable endpoints, no use_api); the embedded executor never asks for the others",
        });
      }
      return json(404, { error: `no route for ${req.method} ${path}` });
    } catch (e) {
      if (e instanceof EventValidationError || e instanceof BadRequest)
        return json(400, { error: e.message, status: 400 });
      if (e instanceof PayloadTooLarge) return json(413, { error: e.message, status: 413 });
      ex.log.error("executor HTTP handler failed", { method: req.method, path, err: e });
      return json(500, { error: "internal error in the embedded executor", status: 500 });
    }
  };
}

async function adminRoute(
  admin: AdminApi,
  method: string,
  path: string,
  q: URLSearchParams,
): Promise<Response> {
  if (method === "GET" && path === "/admin/functions")
    return json(200, { functions: await admin.listFunctions() });
  if (method === "GET" && path === "/admin/runs") {
    const limit = q.get("limit");
    const runs = await admin
      .listExecutions({
        status: (q.get("status") || undefined) as ExecutorExecutionStatus | undefined,
        functionId: q.get("functionId") || undefined,
        eventId: q.get("eventId") || undefined,
        before: q.get("before") || undefined,
        limit: limit ? Number(limit) : undefined,
      })
      .catch((e: Error) => {
        throw new BadRequest(e.message);
      });
    return json(200, { runs });
  }
  const runRoute = path.match(/^\/admin\/runs\/([^/]+)(\/cancel)?$/);
  if (runRoute) {
    const id = decodeURIComponent(runRoute[1]!);
    if (runRoute[2] && method === "POST") {
      const res = await admin.cancelExecution(id);
      return json(
        res.cancelled ? 200 : 409,
        res.cancelled ? res : { ...res, error: "run not found or already finished" },
      );
    }
    if (!runRoute[2] && method === "GET") {
      const run = await admin.getExecution(id);
      return run ? json(200, run) : json(404, { error: `run ${id} not found` });
    }
  }
  if (method === "POST" && path === "/admin/sync") {
    try {
      return json(200, { apps: await admin.sync() });
    } catch (e) {
      return json(502, { error: (e as Error).message });
    }
  }
  if (method === "GET" && path === "/admin/events") {
    const limit = q.get("limit");
    return json(200, {
      events: await admin.listEvents({
        name: q.get("name") || undefined,
        limit: limit ? Number(limit) : undefined,
      }),
    });
  }
  return json(404, { error: `no admin route for ${method} ${path}` });
}

class BadRequest extends Error {}
class PayloadTooLarge extends Error {}

async function readJson(req: Request): Promise<unknown> {
  const text = await readBounded(req, MAX_BODY_BYTES);
  try {
    return JSON.parse(text);
  } catch {
    throw new BadRequest("body is not valid JSON");
  }
}

/** Reads a body, giving up (413) as soon as it passes `limit` bytes instead of buffering it all. */
async function readBounded(req: Request, limit: number): Promise<string> {
  const body = await readBodyCapped(req, limit);
  if (body === null) throw new PayloadTooLarge(`body larger than ${limit} bytes`);
  return body.toString("utf8");
}

/** Serves a fetch handler with node:http. `dispatch` is read per request (dev HMR swaps it). */
export function listen(
  dispatch: () => FetchHandler,
  port: number,
  host: string,
): Promise<{ server: http.Server; url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    void serveNode(dispatch(), req, res);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      const addr = server.address();
      const actualPort = typeof addr === "object" && addr ? addr.port : port;
      resolve({
        server,
        url: `http://${host}:${actualPort}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections?.();
          }),
      });
    });
  });
}

async function serveNode(
  handler: FetchHandler,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<void> {
  try {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY_BYTES) {
        res
          .writeHead(413, { "content-type": "application/json" })
          .end(JSON.stringify({ error: "body too large", status: 413 }));
        return;
      }
      chunks.push(chunk as Buffer);
    }
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) {
      if (Array.isArray(v)) v.forEach((x) => headers.append(k, x));
      else if (v !== undefined) headers.set(k, v);
    }
    const method = req.method ?? "GET";
    const request = new Request(`http://${req.headers.host ?? "localhost"}${req.url ?? "/"}`, {
      method,
      headers,
      body: method === "GET" || method === "HEAD" ? undefined : Buffer.concat(chunks),
    });
    const response = await handler(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  } catch (e) {
    if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: (e as Error).message }));
  }
}
