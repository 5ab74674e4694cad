import type { StepConfig } from "@/lib/workflow";
import { DomainError } from "@/server/errors";
import { createProposal } from "@/server/services/proposals/create-proposal";
import { loadRun } from "@/server/services/runs/load-run";
import { runtimeNow, stepRuntime } from "@/server/services/step-execution/runtime";
import { StepFailure, type ActionHandler } from "./types";

/**
 * `propose_change`: opens a change proposal for the running workflow through the same service
 * verb as every other path. The proposal links back to this run and step, and acts for the run's
 * accountable user (who may then not approve it). Its base is the version the run pinned: if
 * the workflow was published since the run started, the change was computed against an older
 * version and is refused as STALE_BASE rather than rebased. A refusal (stale base, policy,
 * invalid change) is a user error of the step, with the service's message.
 */
export const proposeChangeHandler: ActionHandler<StepConfig<"propose_change">> = async (ctx) => {
  const rt = await stepRuntime();
  const c = ctx.config;
  // Validation refuses propose_change in inline definitions; this guards the type.
  if (!ctx.workflowId)
    throw new StepFailure("An inline run has no saved workflow to propose a change to", "user");
  try {
    const run = await loadRun(rt.db, ctx.workspaceId, ctx.runId);
    // A test run (docs/runs.md "Testing while building") of the draft has no version to base a
    // proposal on, and must change nothing: even when confirmed, it reports what it would propose.
    if (run.isTest)
      return {
        data: { proposalId: null, status: "not_created", summary: c.summary },
        meta: { test: "A test run creates no proposal" },
      };
    const r = await createProposal({
      ctx: {
        db: rt.db,
        keys: rt.keys,
        config: rt.config,
        log: ctx.log,
        now: runtimeNow,
        actor: { type: "system", name: `run:${ctx.runId}` },
        workspace: { id: ctx.workspaceId, role: "editor" },
      },
      input: {
        workflowId: ctx.workflowId,
        baseHash: run.hash,
        summary: c.summary,
        ...(c.rationale !== undefined ? { rationale: c.rationale } : {}),
        ...(c.patch !== undefined ? { patch: c.patch } : { definition: c.definition }),
      },
      origin: { kind: "run", runId: ctx.runId, stepId: ctx.stepId, stepPath: ctx.stepPath },
    });
    return { data: { proposalId: r.id, status: r.status, risk: r.risk } };
  } catch (e) {
    if (e instanceof DomainError)
      throw new StepFailure(e.message, "user", {
        code: (e.details as { reason?: string } | undefined)?.reason ?? e.code,
      });
    throw e;
  }
};
