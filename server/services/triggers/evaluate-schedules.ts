import "server-only";
import { and, desc, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { runs, scheduleTicks, triggers } from "@/db/schema";
import type { Logger } from "@/lib/log";
import { ScheduleConfig } from "@/lib/schemas/triggers";
import {
  checkMinInterval,
  compileSchedule,
  type CompiledSchedule,
  DEFAULT_MIN_INTERVAL_SECONDS,
  offsetMinutes,
  ScheduleError,
} from "@/lib/triggers/cron";
import { planTicks } from "@/lib/triggers/tick-plan";
import { scheduleZone } from "@/lib/triggers/schedule-zone";
import type { Keys } from "../../keys";
import { DomainError } from "../../errors";
import type { ServiceConfig } from "../context";
import { startTriggerRun, triggerContext, type TriggerRow } from "./start-trigger-run";
import { UNFINISHED_RUN_STATUSES } from "@/lib/workflow/status";
import { workflowTimezoneSql } from "./workflow-timezone";

export interface EvaluateSchedulesDeps {
  db: Db;
  keys: Keys;
  config: ServiceConfig;
  log: Logger;
  /** The evaluation instant (the engine clock; tests pass their own). */
  now: Date;
}

export interface EvaluateSchedulesResult {
  triggers: number;
  fired: number;
  skipped: number;
  missed: number;
  failed: number;
  /** Ticks another scheduler claimed first. */
  lost: number;
}

/** Not yet finished: an earlier tick's run of this trigger still holds or awaits a slot. */
const UNFINISHED = UNFINISHED_RUN_STATUSES;

/**
 * The every-minute scheduler body (SPEC §7). For each enabled schedule trigger: plan the ticks
 * from its cursor, record missed ones, and fire a due tick by inserting its (trigger, tick) claim
 * and starting the run in the same transaction — with several schedulers on one database exactly
 * one insert wins, and the loser does nothing. One trigger's failure never stops the others.
 */
export async function evaluateSchedules(
  deps: EvaluateSchedulesDeps,
): Promise<EvaluateSchedulesResult> {
  // Each schedule's workflow zone comes with it: read every minute, so a newly published zone
  // moves inheriting schedules from the next evaluation on.
  const rows = await deps.db
    .select({ trigger: triggers, workflowTimezone: workflowTimezoneSql(triggers.workflowId) })
    .from(triggers)
    .where(and(eq(triggers.kind, "schedule"), eq(triggers.enabled, true)))
    .orderBy(triggers.id);
  const result: EvaluateSchedulesResult = {
    triggers: rows.length,
    fired: 0,
    skipped: 0,
    missed: 0,
    failed: 0,
    lost: 0,
  };
  for (const { trigger, workflowTimezone } of rows) {
    try {
      await evaluateTrigger(deps, trigger, workflowTimezone, result);
    } catch (e) {
      // Only bookkeeping writes can land here (tick failures are recorded inside); log and go on.
      result.failed++;
      deps.log.error("schedule evaluation failed", { triggerId: trigger.id, err: e });
    }
  }
  return result;
}

async function evaluateTrigger(
  deps: EvaluateSchedulesDeps,
  trigger: TriggerRow,
  workflowTimezone: string | null,
  result: EvaluateSchedulesResult,
): Promise<void> {
  const { db, now } = deps;
  const parsed = ScheduleConfig.safeParse(trigger.config);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
    return configProblem(
      deps,
      trigger,
      `Invalid schedule: ${where}${issue?.message ?? "unknown problem"}`,
      result,
    );
  }
  const config = parsed.data;
  const timezone = scheduleZone(config.timezone, workflowTimezone).timezone;
  try {
    const schedule = compileSchedule(config.cron, timezone);
    const problem = minIntervalProblem(
      schedule,
      deps.config.scheduleMinIntervalSeconds ?? DEFAULT_MIN_INTERVAL_SECONDS,
      now,
    );
    if (problem) throw new ScheduleError("cron", problem);
  } catch (e) {
    if (e instanceof ScheduleError) return configProblem(deps, trigger, e.message, result);
    throw e;
  }

  // An edit or a re-enable after the last planning (updated_at later than the cursor) restarts
  // planning there: a paused period is not downtime, and a changed cron owes no old ticks.
  const cursor =
    trigger.scheduleCursor && trigger.updatedAt > trigger.scheduleCursor
      ? trigger.updatedAt
      : trigger.scheduleCursor;
  const plan = planTicks({
    cron: config.cron,
    tz: timezone,
    cursor,
    now,
    misfire: config.misfire,
    catchUpWindowMinutes: config.catchUpWindowMinutes,
  });
  if (plan.omittedMissed || plan.horizonStart) {
    deps.log.warn("schedule missed more ticks than are recorded", {
      triggerId: trigger.id,
      omitted: plan.omittedMissed,
      horizonStart: plan.horizonStart,
    });
  }
  if (plan.missed.length) {
    const inserted = await db
      .insert(scheduleTicks)
      .values(
        plan.missed.map((m) => ({
          triggerId: trigger.id,
          workspaceId: trigger.workspaceId,
          tick: new Date(m.tick),
          status: "missed" as const,
          reason: m.reason,
          claimedAt: now,
        })),
      )
      .onConflictDoNothing()
      .returning({ tick: scheduleTicks.tick });
    result.missed += inserted.length;
  }
  for (const due of plan.due) {
    const outcome = await fireTick(deps, trigger, config, timezone, due.tick);
    result[outcome]++;
  }
  await advanceCursor(db, trigger.id, new Date(plan.cursor));
}

type TickOutcome = "fired" | "skipped" | "failed" | "lost";

async function fireTick(
  deps: EvaluateSchedulesDeps,
  trigger: TriggerRow,
  config: ScheduleConfig,
  timezone: string,
  tickIso: string,
): Promise<TickOutcome> {
  const { db, now } = deps;
  const tick = new Date(tickIso);
  const ctx = triggerContext({ ...deps, now: () => now }, trigger.workspaceId, "scheduler");
  try {
    return await db.transaction(async (tx) => {
      // The claim: on a concurrent insert Postgres waits for the winner, then does nothing.
      const [claim] = await tx
        .insert(scheduleTicks)
        .values({
          triggerId: trigger.id,
          workspaceId: trigger.workspaceId,
          tick,
          status: "fired",
          claimedAt: now,
        })
        .onConflictDoNothing()
        .returning({ tick: scheduleTicks.tick });
      if (!claim) return "lost" as const;
      const thisTick = and(eq(scheduleTicks.triggerId, trigger.id), eq(scheduleTicks.tick, tick));
      if (config.overlap === "skip") {
        const [active] = await tx
          .select({ id: runs.id, status: runs.status })
          .from(runs)
          .where(
            and(
              eq(runs.workspaceId, trigger.workspaceId),
              eq(runs.triggerType, "schedule"),
              eq(runs.triggerId, trigger.id),
              inArray(runs.status, [...UNFINISHED]),
            ),
          )
          .limit(1);
        if (active) {
          await tx
            .update(scheduleTicks)
            .set({
              status: "skipped",
              reason: `overlap policy skip: run ${active.id} of this schedule is still ${active.status}`,
            })
            .where(thisTick);
          return "skipped" as const;
        }
      }
      // `queue` and `allow` both start the run; admission queues it FIFO behind the limits.
      const started = await startTriggerRun(tx, ctx, trigger, {
        input: config.input,
        payload: {
          tick: tickIso,
          scheduledFor: localIso(timezone, tick.getTime()),
          timezone,
        },
        idempotencyKey: tickIso,
      });
      await tx
        .update(scheduleTicks)
        .set({
          runId: started.run.id,
          reason: started.deduplicated ? `an existing run answered (${started.reason})` : null,
        })
        .where(thisTick);
      return "fired" as const;
    });
  } catch (e) {
    const reason = failureReason(e);
    if (!(e instanceof DomainError)) {
      deps.log.error("schedule tick failed", {
        triggerId: trigger.id,
        tick: tickIso,
        err: e,
      });
    }
    const [row] = await db
      .insert(scheduleTicks)
      .values({
        triggerId: trigger.id,
        workspaceId: trigger.workspaceId,
        tick,
        status: "failed",
        reason,
        claimedAt: now,
      })
      .onConflictDoNothing()
      .returning({ tick: scheduleTicks.tick });
    return row ? "failed" : "lost";
  }
}

// Walking 200 fire times per schedule per minute adds up; the verdict hardly depends on the day.
const verdicts = new Map<string, string | null>();

function minIntervalProblem(schedule: CompiledSchedule, minimum: number, now: Date): string | null {
  const key = `${minimum}\u0000${schedule.timezone}\u0000${schedule.cron}`;
  let v = verdicts.get(key);
  if (v === undefined) {
    const verdict = checkMinInterval(schedule, minimum, now);
    v = verdict.ok ? null : verdict.message!;
    if (verdicts.size >= 5_000) verdicts.clear();
    verdicts.set(key, v);
  }
  return v;
}

/** Domain errors are written for users (no published version, invalid input…); others are not. */
function failureReason(e: unknown): string {
  if (e instanceof DomainError) return e.message;
  return "Internal error while starting the run (details are in the server log)";
}

/**
 * A schedule that cannot be planned (edited into an invalid state, or denser than the minimum
 * interval since the minimum was raised): a failed tick at this minute says why — once per
 * distinct problem, not every minute — and the cursor moves on so a fix starts from now.
 */
async function configProblem(
  deps: EvaluateSchedulesDeps,
  trigger: TriggerRow,
  reason: string,
  result: EvaluateSchedulesResult,
): Promise<void> {
  const { db, now } = deps;
  const [last] = await db
    .select({ status: scheduleTicks.status, reason: scheduleTicks.reason })
    .from(scheduleTicks)
    .where(eq(scheduleTicks.triggerId, trigger.id))
    .orderBy(desc(scheduleTicks.tick))
    .limit(1);
  if (!(last?.status === "failed" && last.reason === reason)) {
    const [row] = await db
      .insert(scheduleTicks)
      .values({
        triggerId: trigger.id,
        workspaceId: trigger.workspaceId,
        tick: new Date(now.getTime() - (now.getTime() % 60_000)),
        status: "failed",
        reason,
        claimedAt: now,
      })
      .onConflictDoNothing()
      .returning({ tick: scheduleTicks.tick });
    if (row) result.failed++;
  }
  await advanceCursor(db, trigger.id, now);
}

/** Never moves a cursor backwards (a slower scheduler may finish after a faster one). */
async function advanceCursor(db: Db, triggerId: string, to: Date): Promise<void> {
  await db
    .update(triggers)
    .set({
      scheduleCursor: sql`greatest(coalesce(${triggers.scheduleCursor}, ${to.toISOString()}::timestamptz), ${to.toISOString()}::timestamptz)`,
    })
    .where(eq(triggers.id, triggerId));
}

/** `2026-03-29T03:00:00+02:00`: the tick as wall-clock time in the schedule's zone. */
function localIso(timezone: string, at: number): string {
  const offset = offsetMinutes(timezone, at);
  const wall = new Date(at + offset * 60_000).toISOString().slice(0, 19);
  const sign = offset < 0 ? "-" : "+";
  const abs = Math.abs(offset);
  return `${wall}${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}
