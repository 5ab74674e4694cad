import "server-only";
import { and, desc, eq, notLike } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { runSteps } from "@/db/schema";
import {
  buildRunnableGraph,
  SIDE_EFFECT_STEP_TYPES,
  WorkflowDefinition,
  type StepType,
} from "@/lib/workflow";
import { INLINE_VERSION } from "@/lib/schemas/runs";
import { PreconditionFailedError, ValidationError } from "../../errors";
import { loadVersion, loadWorkflow } from "../workflows/load-workflow";
import { contentOf } from "../workflows/version-content";
import type { RunRow } from "./load-run";

export interface RerunTarget {
  workflowId: string | null;
  /** Null for an inline run: it reruns its own snapshot (`hash`). */
  versionId: string | null;
  version: string;
  hash: string;
}

/**
 * The definition a rerun executes: the run's pinned version or its workflow's current one; an
 * inline run has no workflow, so it always reruns its own snapshot.
 */
export async function rerunTarget(
  db: Queryable,
  workspaceId: string,
  original: RunRow,
  version: "pinned" | "current",
): Promise<RerunTarget> {
  if (!original.workflowId) {
    if (version === "current")
      throw new PreconditionFailedError(
        "An inline run has no workflow with a current version; rerun it on its own definition (pinned)",
      );
    return { workflowId: null, versionId: null, version: INLINE_VERSION, hash: original.hash };
  }
  const wf = await loadWorkflow(db, workspaceId, original.workflowId);
  const targetVersionId = version === "current" ? wf.currentVersionId : original.versionId;
  if (!targetVersionId) throw new PreconditionFailedError("The workflow has no published version");
  if (original.triggerType === "recording" && targetVersionId === original.versionId)
    throw new PreconditionFailedError(
      "A recording's own version is a placeholder: publish the draft save_as_workflow wrote, then rerun on the current version",
    );
  const target = await loadVersion(db, workspaceId, wf.id, targetVersionId);
  return { workflowId: wf.id, versionId: target.id, version: target.version, hash: target.hash };
}

export interface RerunPlan {
  /** Reused outcomes of steps before `fromStepId`, keyed by step id. */
  seed: Record<
    string,
    { status: "completed" | "failed" | "skipped"; port?: string; output?: unknown; error?: unknown }
  >;
  /** Steps that will run again, in order, and which of them have side effects. */
  rerun: { stepId: string; type: string; sideEffect: boolean }[];
}

/**
 * Which steps a rerun from `fromStepId` repeats (the step and everything downstream of it in the
 * target version's graph) and which earlier outcomes it reuses (each step's last recorded
 * attempt in the original run).
 */
export async function planRerun(
  db: Queryable,
  original: RunRow,
  target: { hash: string },
  fromStepId?: string | null,
): Promise<RerunPlan> {
  const definition = WorkflowDefinition.parse(
    await contentOf(db, original.workspaceId, target.hash),
  );
  const graph = buildRunnableGraph(definition);
  const all = graph.order.map((id) => ({ stepId: id, type: graph.nodes.get(id)!.type }));
  const side = (t: string) => (SIDE_EFFECT_STEP_TYPES as readonly string[]).includes(t as StepType);
  if (!fromStepId) return { seed: {}, rerun: all.map((s) => ({ ...s, sideEffect: side(s.type) })) };
  if (!graph.nodes.has(fromStepId)) {
    throw new ValidationError(`Step "${fromStepId}" does not exist in this version`, [
      { path: ["fromStepId"], message: "Unknown step" },
    ]);
  }
  const downstream = new Set<string>([fromStepId]);
  for (const id of graph.order) {
    if (downstream.has(id)) continue;
    const deps = [
      ...(graph.incoming.get(id) ?? []).map((e) => e.from),
      ...(graph.whenDeps.get(id) ?? []),
    ];
    if (deps.some((d) => downstream.has(d))) downstream.add(id);
  }
  // Top-level rows only (loop body rows carry `[`), newest attempt first.
  const rows = await db
    .select()
    .from(runSteps)
    .where(and(eq(runSteps.runId, original.id), notLike(runSteps.path, "%[%")))
    .orderBy(desc(runSteps.attempt));
  const last = new Map<string, (typeof rows)[number]>();
  for (const r of rows) if (!last.has(r.path)) last.set(r.path, r);
  const seed: RerunPlan["seed"] = {};
  for (const id of graph.order) {
    if (downstream.has(id)) continue;
    const r = last.get(id);
    if (!r) continue;
    if (r.status === "completed")
      seed[id] = { status: "completed", ...(r.port ? { port: r.port } : {}), output: r.output };
    else if (r.status === "failed") seed[id] = { status: "failed", error: r.error };
    else if (r.status === "skipped") seed[id] = { status: "skipped" };
    else {
      throw new ValidationError(
        `Cannot rerun from "${fromStepId}": step "${id}" before it did not finish in the original run (${r.status})`,
        [{ path: ["fromStepId"], message: "An earlier step did not finish" }],
      );
    }
  }
  return {
    seed,
    rerun: all.filter((s) => !seed[s.stepId]).map((s) => ({ ...s, sideEffect: side(s.type) })),
  };
}
