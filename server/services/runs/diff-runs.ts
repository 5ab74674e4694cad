import "server-only";
import { and, asc, desc, eq, lt, ne } from "drizzle-orm";
import type { Queryable } from "@/db/client";
import { runs, runSteps } from "@/db/schema";
import { diffJson } from "@/lib/json-diff";
import { diffRunSteps, RUN_DIFF_CAPS } from "@/lib/runs/run-diff";
import { DiffRunsInput } from "@/lib/schemas/run-diff";
import { PreconditionFailedError, fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { loadRun, type RunRow } from "./load-run";

/**
 * Step-by-step diff of two runs of the workspace, of any versions (even of different workflows):
 * status, duration, input and output as JSON diffs, and the path taken. Diffs are capped per step
 * (RUN_DIFF_CAPS) so a megabyte output answers with a bounded diff, never the output itself.
 */
export async function diffRuns({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "viewer");
  const parsed = DiffRunsInput.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Run diff");
  const b = await loadRun(ctx.db, ws.id, parsed.data.runId);
  const a = parsed.data.withRunId
    ? await loadRun(ctx.db, ws.id, parsed.data.withRunId)
    : await previousRun(ctx.db, b);
  const [aRows, bRows] = await Promise.all([stepRows(ctx.db, a.id), stepRows(ctx.db, b.id)]);
  const steps = diffRunSteps(aRows, bRows);
  return {
    a: runSide(a),
    b: runSide(b),
    sameVersion: a.hash === b.hash,
    statusChanged: a.status !== b.status,
    durationDeltaMs:
      duration(a) !== null && duration(b) !== null ? duration(b)! - duration(a)! : null,
    input: diffJson(a.input, b.input, RUN_DIFF_CAPS),
    output: diffJson(a.output, b.output, RUN_DIFF_CAPS),
    ...steps,
  };
}

/**
 * The run before `run` of the same workflow (test runs aside); an inline run's baseline is the
 * run it reran. Refused, saying why, when there is none.
 */
async function previousRun(db: Queryable, run: RunRow): Promise<RunRow> {
  if (!run.workflowId) {
    if (run.rerunOfRunId) return loadRun(db, run.workspaceId, run.rerunOfRunId);
    throw new PreconditionFailedError(
      `Run ${run.id} is an inline run with no previous run; name the run to compare with (withRunId)`,
    );
  }
  const [prev] = await db
    .select()
    .from(runs)
    .where(
      and(
        eq(runs.workspaceId, run.workspaceId),
        eq(runs.workflowId, run.workflowId),
        eq(runs.isTest, false),
        ne(runs.id, run.id),
        lt(runs.createdAt, run.createdAt),
      ),
    )
    .orderBy(desc(runs.createdAt), desc(runs.id))
    .limit(1);
  if (!prev)
    throw new PreconditionFailedError(
      `Run ${run.id} is the first run of its workflow; name the run to compare with (withRunId)`,
    );
  return prev;
}

function stepRows(db: Queryable, runId: string) {
  return db
    .select()
    .from(runSteps)
    .where(eq(runSteps.runId, runId))
    .orderBy(asc(runSteps.createdAt), asc(runSteps.path), asc(runSteps.attempt));
}

function duration(r: RunRow): number | null {
  return r.startedAt && r.finishedAt ? r.finishedAt.getTime() - r.startedAt.getTime() : null;
}

function runSide(r: RunRow) {
  return {
    id: r.id,
    workflowId: r.workflowId,
    version: r.version,
    hash: r.hash,
    status: r.status,
    triggerType: r.triggerType,
    createdAt: r.createdAt,
    durationMs: duration(r),
  };
}
