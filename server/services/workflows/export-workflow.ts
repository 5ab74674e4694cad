import "server-only";
import { ExportWorkflowInput } from "@/lib/schemas/workflows";
import { exportDefinition } from "@/lib/workflow";
import { NotFoundError, fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { loadVersion, loadWorkflow } from "./load-workflow";
import { contentOf } from "./version-content";

/** A version ("current" by default) or the draft as JSON or YAML, with the layout included. */
export async function exportWorkflow({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "viewer");
  const parsed = ExportWorkflowInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error);
  const { workflowId, version, format } = parsed.data;
  const wf = await loadWorkflow(ctx.db, ws.id, workflowId);
  let definition: unknown;
  let label: string;
  if (version === "draft") {
    definition = wf.draft;
    label = "draft";
  } else {
    const id = version === "current" ? wf.currentVersionId : version;
    if (!id) throw new NotFoundError("Published version of this workflow");
    const v = await loadVersion(ctx.db, ws.id, wf.id, id);
    definition = await contentOf(ctx.db, ws.id, v.hash);
    label = `v${v.version}`;
  }
  const withLayout =
    typeof definition === "object" && definition !== null && Object.keys(wf.layout).length
      ? { ...(definition as object), layout: wf.layout }
      : definition;
  return {
    filename: `${wf.slug}-${label}.${format === "yaml" ? "yaml" : "json"}`,
    contentType: format === "yaml" ? "application/yaml" : "application/json",
    content: exportDefinition(withLayout, format, { includeLayout: true }),
  };
}
