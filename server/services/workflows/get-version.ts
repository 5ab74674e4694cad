import "server-only";
import { VersionRef } from "@/lib/schemas/workflows";
import { fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { loadVersion, loadWorkflow } from "./load-workflow";
import { contentOf } from "./version-content";

export async function getVersion({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "viewer");
  const parsed = VersionRef.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error);
  const wf = await loadWorkflow(ctx.db, ws.id, parsed.data.workflowId);
  const v = await loadVersion(ctx.db, ws.id, wf.id, parsed.data.versionId);
  return {
    ...v,
    isCurrent: v.id === wf.currentVersionId,
    definition: await contentOf(ctx.db, ws.id, v.hash),
  };
}
