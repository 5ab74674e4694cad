/**
 * Calls an `app/api/**` route handler directly, as Next.js would: a Web `Request` to
 * `http://localhost/api/v1<path>` with a bearer token and a JSON body, and the route's params.
 * Answers the status and the parsed JSON body (null when the body is empty).
 */
type RouteHandler = (
  req: Request,
  ctx: { params: Promise<Record<string, string>> },
) => Promise<Response>;

export async function callRoute(
  handler: unknown,
  opts: {
    path: string;
    token: string;
    method?: string;
    params?: Record<string, string>;
    body?: unknown;
  },
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test reads the JSON freely
): Promise<{ status: number; body: Record<string, any> }> {
  const res = await (handler as RouteHandler)(
    new Request(`http://localhost/api/v1${opts.path}`, {
      method: opts.method ?? "GET",
      headers: { authorization: `Bearer ${opts.token}`, "content-type": "application/json" },
      ...(opts.body === undefined ? {} : { body: JSON.stringify(opts.body) }),
    }),
    { params: Promise.resolve(opts.params ?? {}) },
  );
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}
