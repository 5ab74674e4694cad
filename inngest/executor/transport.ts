/**
 * How the executor reaches the app's `serve()` endpoint. Both transports exercise the SDK's real
 * request handling (body parsing, signature checks, middleware, status codes):
 * - `httpTransport`: `fetch` to the serve URL (production; also the crash and HTTP tests);
 * - `inProcessTransport`: calls the exported handler's `POST`/`PUT` with a `Request` (fast tests).
 */
export interface TransportRequest {
  method: "POST" | "PUT";
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

export interface TransportResponse {
  status: number;
  headers: Headers;
  body: string;
}

export type Transport = (req: TransportRequest) => Promise<TransportResponse>;

export class TransportError extends Error {
  override name = "TransportError";
}

export function httpTransport(fetchImpl: typeof fetch = fetch): Transport {
  return async (req) => {
    let res: Response;
    try {
      res = await fetchImpl(req.url, {
        method: req.method,
        headers: req.headers,
        body: req.body,
        signal: AbortSignal.timeout(req.timeoutMs),
        redirect: "manual",
      });
    } catch (e) {
      const err = e as Error;
      const reason =
        err.name === "TimeoutError"
          ? `timed out after ${req.timeoutMs} ms`
          : describeFetchError(err);
      throw new TransportError(`${req.method} ${stripQuery(req.url)} failed: ${reason}`);
    }
    return { status: res.status, headers: res.headers, body: await res.text() };
  };
}

/** The shape of `serve()`'s export from `inngest/next` (and other fetch-style adapters). */
export interface ServeHandler {
  POST: (req: Request, ctx?: never) => Promise<Response>;
  PUT: (req: Request, ctx?: never) => Promise<Response>;
}

export function inProcessTransport(handler: ServeHandler): Transport {
  return async (req) => {
    const request = new Request(req.url, {
      method: req.method,
      headers: req.headers,
      body: req.body,
    });
    const call = req.method === "POST" ? handler.POST(request) : handler.PUT(request);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new TransportError(`in-process call timed out after ${req.timeoutMs} ms`)),
        req.timeoutMs,
      );
    });
    try {
      const res = await Promise.race([call, timeout]);
      return { status: res.status, headers: res.headers, body: await res.text() };
    } finally {
      clearTimeout(timer);
    }
  };
}

function describeFetchError(e: Error): string {
  const cause = (e as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? e.message;
}

function stripQuery(url: string): string {
  return url.split("?")[0]!;
}
