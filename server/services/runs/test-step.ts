import "server-only";
import { TestStepInput } from "@/lib/schemas/test-runs";
import { fromZodError, ValidationError } from "../../errors";
import { requireRole, requireUserId, type ServiceContext } from "../context";
import { recordAudit } from "../audit/record-audit";
import { compileDefinition } from "../workflows/definition-policy";
import { createRun } from "./create-run";
import { planTestRun } from "./test-run-plan";
import { storeDefinitionContent } from "../workflows/definition-content";

/**
 * "Test this step" / "Test up to here" (docs/runs.md "Testing while building"): runs the draft,
 * cut to the step and its ancestors, as a test run of its workflow — the same engine as any run,
 * with the steps whose last real output is reused seeded instead of executed. A side-effecting
 * step runs only when the builder confirmed it (`sideEffects[id] = "execute"`); one with neither
 * a confirmation nor a recorded output is refused, naming it. Test runs count against no quota,
 * publish no events and stay out of the run lists; they obey the normal run limits.
 */
export async function testStep({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "editor");
  const parsed = TestStepInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Test");
  const userId = requireUserId(ctx);
  const plan = await planTestRun(ctx.db, ws.id, parsed.data);
  const ask = plan.steps.filter((s) => s.action === "ask");
  if (ask.length)
    throw new ValidationError(
      `${ask.map((s) => `"${s.stepId}" (${s.type})`).join(", ")} ${ask.length === 1 ? "has" : "have"} side effects and no output from the last run to reuse: confirm with sideEffects.<step> = "execute"`,
      ask.map((s) => ({
        path: ["sideEffects", s.stepId],
        message: `Side-effecting ${s.type} step: choose "execute" to run it for real`,
      })),
    );
  const runInput = parsed.data.input ?? plan.lastRun?.input ?? {};
  const result = await ctx.db.transaction(async (tx) => {
    // Not `inline`: the test runs under its saved workflow (propose_change steps validate).
    const compiled = await compileDefinition(tx, ws.id, plan.definition, "The draft");
    await storeDefinitionContent(tx, {
      workspaceId: ws.id,
      hash: compiled.hash,
      definition: compiled.normalized,
      createdAt: ctx.now(),
    });
    const r = await createRun(tx, ctx, {
      workspaceId: ws.id,
      workflowId: parsed.data.workflowId,
      inlineHash: compiled.hash,
      input: runInput,
      trigger: { type: "manual", payload: { test: { stepId: parsed.data.stepId } } },
      initiator:
        ctx.actor.type === "token"
          ? { type: "token", id: ctx.actor.tokenId }
          : { type: "user", id: userId },
      accountableUserId: userId,
      test: { seed: plan.seed },
    });
    await recordAudit(tx, ctx, {
      action: "run.test",
      targetType: "run",
      targetId: r.run.id,
      data: {
        workflowId: parsed.data.workflowId,
        stepId: parsed.data.stepId,
        mode: parsed.data.mode,
        hash: compiled.hash,
        executed: plan.steps.filter((s) => s.action === "execute").map((s) => s.stepId),
        reused: Object.keys(plan.seed),
      },
    });
    return { run: r.run, warnings: compiled.warnings };
  });
  return {
    runId: result.run.id,
    status: result.run.status,
    steps: plan.steps,
    input: runInput,
    warnings: result.warnings,
  };
}
