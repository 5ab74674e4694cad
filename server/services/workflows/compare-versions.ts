import "server-only";
import { CompareVersionsInput } from "@/lib/schemas/workflows";
import { diffDefinitions, validateDefinition } from "@/lib/workflow";
import { fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { loadVersion, loadWorkflow, type WorkflowRow } from "./load-workflow";
import { contentOf } from "./version-content";

async function side(ctx: ServiceContext, wf: WorkflowRow, ref: string) {
  if (ref === "draft") {
    const v = validateDefinition(wf.draft);
    return {
      label: "Draft",
      definition: (v.ok && v.definition ? v.definition : wf.draft) as Record<string, unknown>,
      valid: v.ok,
    };
  }
  const version = await loadVersion(ctx.db, wf.workspaceId, wf.id, ref);
  return {
    label: `v${version.version}`,
    definition: await contentOf(ctx.db, wf.workspaceId, version.hash),
    valid: true,
  };
}

/** Two versions (or a version and the draft): both JSON documents for a text diff, plus the structural diff. */
export async function compareVersions({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "viewer");
  const parsed = CompareVersionsInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error);
  const wf = await loadWorkflow(ctx.db, ws.id, parsed.data.workflowId);
  const [from, to] = await Promise.all([
    side(ctx, wf, parsed.data.from),
    side(ctx, wf, parsed.data.to),
  ]);
  const diff =
    from.valid && to.valid
      ? diffDefinitions(from.definition as never, to.definition as never)
      : null;
  return {
    from: { label: from.label, json: JSON.stringify(from.definition, null, 2) },
    to: { label: to.label, json: JSON.stringify(to.definition, null, 2) },
    diff,
  };
}
