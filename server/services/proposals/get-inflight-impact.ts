import "server-only";
import { and, asc, count, eq, inArray, ne } from "drizzle-orm";
import { runs, triggers } from "@/db/schema";
import { ProposalRef } from "@/lib/schemas/proposals";
import { ScheduleConfig } from "@/lib/schemas/triggers";
import { nextFireTimes } from "@/lib/triggers/cron";
import { UNFINISHED_RUN_STATUSES, isOpenProposalStatus } from "@/lib/workflow/status";
import { fromZodError } from "../../errors";
import { requireRole, type ServiceContext } from "../context";
import { describeTriggers } from "../triggers/describe-triggers";
import { loadWorkflow } from "../workflows/load-workflow";
import { loadProposal } from "./load-proposal";

/** The most in-flight runs listed; `inFlight.total` counts them all. */
export const MAX_INFLIGHT_LISTED = 100;

/**
 * What applying a proposal touches, before anyone applies it: the runs in flight on the base
 * version (they keep their pinned version and finish on it — applying never migrates a run) and
 * the enabled triggers that start the new version from then on. Read-only, viewer and up.
 */
export async function getInflightImpact({ ctx, input }: { ctx: ServiceContext; input: unknown }) {
  const ws = requireRole(ctx, "viewer");
  const parsed = ProposalRef.safeParse(input);
  if (!parsed.success) throw fromZodError(parsed.error, "Proposal");
  const p = await loadProposal(ctx.db, ws.id, parsed.data.proposalId);
  const wf = await loadWorkflow(ctx.db, ws.id, p.workflowId);
  const unfinished = and(
    eq(runs.workspaceId, ws.id),
    eq(runs.workflowId, wf.id),
    inArray(runs.status, [...UNFINISHED_RUN_STATUSES]),
  );
  const onBase = and(unfinished, eq(runs.versionId, p.baseVersionId));
  const [listed, [totalRow], [othersRow], triggerRows] = await Promise.all([
    ctx.db
      .select({
        id: runs.id,
        status: runs.status,
        version: runs.version,
        triggerType: runs.triggerType,
        createdAt: runs.createdAt,
        startedAt: runs.startedAt,
      })
      .from(runs)
      .where(onBase)
      .orderBy(asc(runs.createdAt), asc(runs.id))
      .limit(MAX_INFLIGHT_LISTED),
    ctx.db.select({ total: count() }).from(runs).where(onBase),
    ctx.db
      .select({ others: count() })
      .from(runs)
      .where(and(unfinished, ne(runs.versionId, p.baseVersionId))),
    ctx.db
      .select()
      .from(triggers)
      .where(
        and(
          eq(triggers.workspaceId, ws.id),
          eq(triggers.workflowId, wf.id),
          eq(triggers.enabled, true),
        ),
      )
      .orderBy(asc(triggers.kind), asc(triggers.name)),
  ]);
  const total = totalRow?.total ?? 0;
  const others = othersRow?.others ?? 0;
  const described = await describeTriggers(ctx, triggerRows);
  const isOpen = isOpenProposalStatus(p.status);
  return {
    proposalId: p.id,
    proposalStatus: p.status,
    workflowId: wf.id,
    baseVersion: p.baseVersion,
    baseVersionId: p.baseVersionId,
    inFlight: {
      total,
      runs: listed,
      truncated: total > listed.length,
      /** Unfinished runs pinned to versions other than the base: they are not affected either. */
      onOtherVersions: others,
      note: `Runs in flight keep their pinned version ${p.baseVersion}: applying does not change them, they finish on it.`,
    },
    triggers: described.map((t) => ({
      id: t.id,
      kind: t.kind,
      name: t.name,
      url: t.url,
      event: t.kind === "event" ? String((t.config as { event?: unknown }).event ?? "") : null,
      schedule: t.schedule
        ? { ...t.schedule, ...scheduleOf(t.config, t.schedule.timezone, ctx.now()) }
        : null,
      lastFiredAt: t.lastFiredAt,
    })),
    triggerNote: isOpen
      ? "From the apply on, these enabled triggers — and manual, API, MCP and subworkflow starts — run the new version."
      : `This proposal is ${p.status}: applying is no longer possible.`,
  };
}

/** A schedule's cron and its next fire time (null when the stored cron no longer compiles). */
function scheduleOf(config: unknown, timezone: string, now: Date) {
  const parsed = ScheduleConfig.safeParse(config);
  if (!parsed.success) return { cron: null, nextAt: null };
  try {
    const [next] = nextFireTimes(parsed.data.cron, timezone, now, 1);
    return { cron: parsed.data.cron, nextAt: next?.at ?? null };
  } catch {
    // A schedule stored before a validation change: shown without a next time, not an error.
    return { cron: parsed.data.cron, nextAt: null };
  }
}
