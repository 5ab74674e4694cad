import { CliError, apiError } from "./errors";
import { EXIT } from "./exit-codes";

export interface SseMessage {
  id: string | null;
  event: string;
  data: string;
}

/**
 * The CLI's only way to the server: JSON over /api/v1 with the bearer token. Every refusal
 * becomes a CliError carrying the exit code its status maps to (exit-codes.ts).
 */
export class ApiClient {
  constructor(
    readonly baseUrl: string,
    private readonly token: string,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  private url(path: string, query?: Record<string, string | number | undefined>): string {
    const u = new URL(`${this.baseUrl}/api/v1${path}`);
    for (const [k, v] of Object.entries(query ?? {}))
      if (v !== undefined && v !== "") u.searchParams.set(k, String(v));
    return u.toString();
  }

  async request<T = Record<string, unknown>>(
    method: string,
    path: string,
    opts: {
      body?: unknown;
      query?: Record<string, string | number | undefined>;
      headers?: Record<string, string>;
    } = {},
  ): Promise<{ status: number; body: T }> {
    const url = this.url(path, opts.query);
    let res: Response;
    try {
      res = await this.fetchImpl(url, {
        method,
        headers: {
          authorization: `Bearer ${this.token}`,
          accept: "application/json",
          ...(opts.body !== undefined ? { "content-type": "application/json" } : {}),
          ...opts.headers,
        },
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      });
    } catch (e) {
      throw networkError(url, e);
    }
    const text = await res.text();
    let body: unknown = null;
    if (text) {
      try {
        body = JSON.parse(text);
      } catch {
        throw new CliError(
          EXIT.internal,
          "bad_response",
          `${method} ${url} answered ${res.status} with a body that is not JSON (is ${this.baseUrl} a Sluice server?)`,
          { body: text.slice(0, 200) },
          res.status,
        );
      }
    }
    if (!res.ok) throw apiError(res.status, body, `${method} ${url} answered ${res.status}`);
    return { status: res.status, body: body as T };
  }

  get<T = Record<string, unknown>>(
    path: string,
    query?: Record<string, string | number | undefined>,
  ) {
    return this.request<T>("GET", path, { query }).then((r) => r.body);
  }

  /**
   * A Server-Sent Events stream, message by message (comments skipped). Ends when the server
   * closes it or `signal` aborts (then quietly).
   */
  async *stream(
    path: string,
    opts: { lastEventId?: string | null; signal?: AbortSignal } = {},
  ): AsyncGenerator<SseMessage> {
    const url = this.url(path);
    let res: Response;
    try {
      res = await this.fetchImpl(url, {
        headers: {
          authorization: `Bearer ${this.token}`,
          accept: "text/event-stream",
          ...(opts.lastEventId ? { "last-event-id": opts.lastEventId } : {}),
        },
        signal: opts.signal,
      });
    } catch (e) {
      if (opts.signal?.aborted) return;
      throw networkError(url, e);
    }
    if (!res.ok) {
      const text = await res.text();
      let body: unknown = null;
      try {
        body = JSON.parse(text);
      } catch {
        body = null;
      }
      throw apiError(res.status, body, `GET ${url} answered ${res.status}`);
    }
    if (!res.body) return;
    const parser = new SseParser();
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        for (const m of parser.push(decoder.decode(chunk, { stream: true }))) yield m;
      }
    } catch (e) {
      if (opts.signal?.aborted) return;
      throw networkError(url, e);
    }
  }
}

function networkError(url: string, e: unknown): CliError {
  const cause = (e as { cause?: { code?: string; message?: string } }).cause;
  const why = cause?.code ?? cause?.message ?? (e as Error).message;
  return new CliError(EXIT.internal, "network", `Could not reach ${url}: ${why}`, undefined, 0);
}

/** The text/event-stream format, incrementally: `id:`, `event:`, `data:` lines, blank line ends. */
export class SseParser {
  private buffer = "";
  private id: string | null = null;
  private event = "";
  private data: string[] = [];

  push(text: string): SseMessage[] {
    this.buffer += text;
    const out: SseMessage[] = [];
    let nl: number;
    while ((nl = this.buffer.search(/\r\n|\n|\r/)) >= 0) {
      const line = this.buffer.slice(0, nl);
      const eol = this.buffer.startsWith("\r\n", nl) ? 2 : 1;
      this.buffer = this.buffer.slice(nl + eol);
      if (line === "") {
        if (this.data.length || this.event)
          out.push({ id: this.id, event: this.event || "message", data: this.data.join("\n") });
        this.event = "";
        this.data = [];
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "data") this.data.push(value);
      else if (field === "event") this.event = value;
      else if (field === "id") this.id = value;
    }
    return out;
  }
}
