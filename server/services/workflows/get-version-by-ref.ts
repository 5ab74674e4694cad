import "server-only";
import { z } from "zod";
import { fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { getVersion } from "./get-version";
import { loadVersionByNumber, loadWorkflow } from "./load-workflow";

const SEMVER = /^\d+\.\d+\.\d+$/;
const Input = z.object({
  workflowId: z.string().min(1).max(64),
  /** A version id (`ver_…`) or its number (`1.4.0`). */
  ref: z.string().min(1).max(64),
});

/** getVersion for callers that know a version by its number (the HTTP API, the CLI). */
export async function getVersionByRef({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "viewer");
  const parsed = Input.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error);
  const { workflowId, ref } = parsed.data;
  if (!SEMVER.test(ref)) return getVersion({ ctx, input: { workflowId, versionId: ref } });
  const wf = await loadWorkflow(ctx.db, ws.id, workflowId);
  const v = await loadVersionByNumber(ctx.db, ws.id, wf.id, ref);
  return getVersion({ ctx, input: { workflowId, versionId: v.id } });
}
