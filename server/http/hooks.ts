import "server-only";
import { getDb } from "@/db";
import { getRuntime } from "../runtime";
import { receiveWebhook } from "../services/triggers/receive-webhook";
import { readBodyCapped } from "@/lib/server-only/read-body";
import { domainErrorResponse } from "./api";
import { countWebhookAnswer } from "../observability/webhook-metrics";

/** `/api/hooks/<path>` adapter: Request → receiveWebhook → JSON Response. */
export async function handleWebhook(
  req: Request,
  ctx: { params: Promise<{ path: string[] }> },
): Promise<Response> {
  const { path } = await ctx.params;
  try {
    const rt = getRuntime();
    const answer = await receiveWebhook(
      { db: await getDb(), keys: rt.keys, config: rt.config, log: rt.log },
      {
        method: req.method,
        path: path.join("/"),
        headers: req.headers,
        query: new URL(req.url).searchParams,
        readBody: (max) => readBodyCapped(req, max),
      },
    );
    countWebhookAnswer(answer);
    return Response.json(answer.body, { status: answer.status, headers: answer.headers });
  } catch (e) {
    countWebhookAnswer({ status: 500, body: { error: { code: "error" } } });
    return domainErrorResponse(e);
  }
}
