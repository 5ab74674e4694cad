import "server-only";
import {
  getTRPCErrorShape,
  transformTRPCResponse,
  TRPCError,
  type AnyTRPCRouter,
} from "@trpc/server";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import { deepJsonRefusal } from "@/lib/json-depth";
import { MAX_DEFINITION_BODY_BYTES } from "@/lib/schemas/workflows";
import { MAX_TRPC_BATCH } from "@/lib/trpc/limits";
import { clip } from "@/lib/workflow/json";
import { PayloadTooLargeError, ValidationError } from "../errors";
import { readBodyCapped } from "@/lib/server-only/read-body";
import { DEFAULT_MAX_BODY_BYTES } from "../http/api";

/** Procedures whose /api/v1 operation documents a larger body (a whole definition). */
const LARGER_BODIES: Readonly<Record<string, number>> = {
  "workflow.saveDraft": MAX_DEFINITION_BODY_BYTES,
  "workflow.import": MAX_DEFINITION_BODY_BYTES,
};

/** The body cap of a request: the largest of its calls' caps (1 MiB unless documented more). */
export function trpcBodyCap(paths: readonly string[]): number {
  return Math.max(DEFAULT_MAX_BODY_BYTES, ...paths.map((p) => LARGER_BODIES[p] ?? 0));
}

/**
 * The limits /api/v1 has, for /api/trpc, checked before the fetch adapter sees the request: at
 * most MAX_TRPC_BATCH calls per batch (400), the body read with a cap (413, never buffered
 * whole), and input nested no deeper than the run input limit (400; superjson and the stores
 * behind the procedures recurse). Returns the request to hand on — rebuilt from the bytes
 * already read — or the refusal, shaped as tRPC answers errors so its client reads the message.
 */
export async function limitTrpcRequest(
  req: Request,
  endpoint: string,
  router: AnyTRPCRouter,
): Promise<Request | Response> {
  const url = new URL(req.url);
  const isBatch = url.searchParams.get("batch") === "1";
  const rawPath = url.pathname.slice(endpoint.length + 1);
  const paths = (isBatch ? rawPath.split(",") : [rawPath]).map(safeDecode);
  const refuse = (code: "BAD_REQUEST" | "PAYLOAD_TOO_LARGE", cause: Error) =>
    trpcRefusal(router, new TRPCError({ code, message: cause.message, cause }));

  if (isBatch && paths.length > MAX_TRPC_BATCH)
    return refuse(
      "BAD_REQUEST",
      new ValidationError(
        `A batch may hold at most ${MAX_TRPC_BATCH} calls; this one has ${paths.length}. Send the calls in smaller batches.`,
        [{ path: [], message: `at most ${MAX_TRPC_BATCH} calls per batch` }],
      ),
    );
  // superjson wraps the input as {"json": …}; a batch keys each call by its index as well.
  const envelope = isBatch ? 2 : 1;
  const tooDeep = (text: string) => {
    const refusal = deepJsonRefusal(text, envelope);
    if (!refusal) return null;
    const index = isBatch ? Number(refusal.envelopePath[0]) : 0;
    const call = paths[index];
    const which =
      call === undefined
        ? "this request"
        : isBatch
          ? `call ${index} (${clip(call, 80)}) of the batch`
          : clip(call, 80);
    return refuse(
      "BAD_REQUEST",
      new ValidationError(
        `The input of ${which} is invalid at ${refusal.where}: ${refusal.message}`,
        [{ path: refusal.path, message: refusal.message }],
      ),
    );
  };

  if (req.method !== "POST") {
    const input = url.searchParams.get("input");
    return (input !== null && tooDeep(input)) || req;
  }
  const cap = trpcBodyCap(paths);
  const tooLarge = () =>
    refuse(
      "PAYLOAD_TOO_LARGE",
      new PayloadTooLargeError(
        `The request body is larger than ${cap} bytes, the limit for ${paths.length > 1 ? "this batch" : clip(paths[0] ?? "", 80)}`,
      ),
    );
  if (Number(req.headers.get("content-length") ?? "0") > cap) return tooLarge();
  const body = await readBodyCapped(req, cap);
  if (body === null) return tooLarge();
  const deep = tooDeep(body.toString("utf8"));
  if (deep) return deep;
  return new Request(req.url, {
    method: req.method,
    headers: req.headers,
    body: new Uint8Array(body),
    signal: req.signal,
  });
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** A refusal in tRPC's own error envelope (through the router's errorFormatter and transformer). */
function trpcRefusal(router: AnyTRPCRouter, error: TRPCError): Response {
  const config = router._def._config;
  const shape = getTRPCErrorShape({
    config,
    error,
    type: "unknown",
    path: undefined,
    input: undefined,
    ctx: undefined,
  });
  return Response.json(transformTRPCResponse(config, { error: shape }), {
    status: getHTTPStatusCodeFromError(error),
  });
}
