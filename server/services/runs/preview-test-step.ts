import "server-only";
import { PreviewTestStepInput } from "@/lib/schemas/test-runs";
import { fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { planTestRun } from "./test-run-plan";

/**
 * What "Test this step" / "Test up to here" would do, for the editor's dialog: the steps it runs,
 * which are side-effecting and what happens to each, and the last real run's input to prefill.
 * Editors only, like the test itself.
 */
export async function previewTestStep({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "editor");
  const parsed = PreviewTestStepInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Test");
  const plan = await planTestRun(ctx.db, ws.id, parsed.data);
  return {
    steps: plan.steps,
    lastRun: plan.lastRun,
    needsConfirmation: plan.steps.filter((s) => s.action === "ask").map((s) => s.stepId),
  };
}
