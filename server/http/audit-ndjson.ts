import "server-only";
import { listAudit } from "../services/audit/list-audit";
import type { ServiceContext } from "../services/context";

/** Past this many rows an export stops; narrow the filters (dates) to export the rest. */
export const NDJSON_EXPORT_MAX_ROWS = 100_000;
const PAGE = 200;

/** True when the client asked for NDJSON (`Accept: application/x-ndjson` or `format=ndjson`). */
export function wantsNdjson(req: Request, format: string | undefined): boolean {
  if (format) return format === "ndjson";
  return (req.headers.get("accept") ?? "").includes("application/x-ndjson");
}

/**
 * Every entry matching `filters`, one JSON object per line, read page by page through the same
 * service verb (so authorization, workspace scope and redaction are the list's). The first page
 * is read before answering, so a refusal is still a JSON error rather than a broken stream.
 */
export async function auditNdjsonResponse(
  ctx: ServiceContext,
  filters: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<Response> {
  const base = { ...filters, cursor: undefined, limit: PAGE };
  let page = await listAudit({ ctx, input: base });
  const encoder = new TextEncoder();
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const lines = page.items.slice(0, NDJSON_EXPORT_MAX_ROWS - sent);
        sent += lines.length;
        if (lines.length)
          controller.enqueue(encoder.encode(lines.map((e) => `${JSON.stringify(e)}\n`).join("")));
        if (!page.nextCursor || sent >= NDJSON_EXPORT_MAX_ROWS || signal?.aborted) {
          controller.close();
          return;
        }
        page = await listAudit({ ctx, input: { ...base, cursor: page.nextCursor } });
      } catch (e) {
        ctx.log.error("audit export failed", { err: e });
        controller.error(e);
      }
    },
  });
  return new Response(stream, {
    status: 200,
    headers: {
      "content-type": "application/x-ndjson; charset=utf-8",
      "content-disposition": 'attachment; filename="audit.ndjson"',
      "cache-control": "no-store",
    },
  });
}
