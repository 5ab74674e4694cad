import "server-only";
import { eq } from "drizzle-orm";
import { workflows } from "@/db/schema";
import { SaveLayoutInput } from "@/lib/schemas/workflows";
import { fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { loadWorkflow } from "./load-workflow";

/** Node positions and viewport: stored apart from the graph, never a version, never audited. */
export async function saveLayout({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "editor");
  const parsed = SaveLayoutInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Layout");
  await loadWorkflow(ctx.db, ws.id, parsed.data.workflowId);
  await ctx.db
    .update(workflows)
    .set({ layout: parsed.data.layout })
    .where(eq(workflows.id, parsed.data.workflowId));
  return { ok: true as const };
}
